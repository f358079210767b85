"""Static files the gateway serves (the spectator page)."""
