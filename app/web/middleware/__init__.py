"""The layers every request passes through, outermost first: the request id (and HEAD served
as GET), the allowed hosts in production, then security headers, the API's rate limit and
compression in one pass."""
