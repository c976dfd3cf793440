"""HTTP routers, one module per area; ``app.main.create_app`` includes each."""
