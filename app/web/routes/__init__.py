"""HTTP routers, one module per area; ``app.web.app.create_app`` includes each."""
