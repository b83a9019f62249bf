"""The "write a narrative" task type: what it checks (the overlap rules), what it stores (a
narrative with its writing record), what it shows (templates/, static/) and exports."""
