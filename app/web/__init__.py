"""The web front end's own logic: reading what pages need, and building view models."""
