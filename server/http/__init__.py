"""HTTP controllers: thin adapters from requests to the match service."""
