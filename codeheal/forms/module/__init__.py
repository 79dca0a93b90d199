"""The module form (`codeheal solve`): a module written against the user's tests."""
