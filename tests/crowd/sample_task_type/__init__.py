"""A task type added as a project adds one: this package, and one registry line naming it
(tests/crowd/test_task_types.py registers it as annotation/task_types/__init__.py lists the
dataset's own). Workers gloss a story: say in a few words what it means, stored in a table of the
package's own (models.py)."""
