"""The requester API for the dataset: one module per resource group, with the permission class."""
