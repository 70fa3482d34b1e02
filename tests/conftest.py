"""Shared test set-up. Database fixtures live in tests/infra/conftest.py."""
