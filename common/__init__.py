"""Utilities every app may use and that belong to none: queueing tasks on commit, request
input checks, the API's parser, pagination, schema and error pages, sessions, log filters,
/healthz. Imports no other app of the project."""
