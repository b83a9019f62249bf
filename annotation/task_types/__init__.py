"""The dataset's task types, one package each; `PACKAGES` is their registry.

A type's package holds all of it: `task.py` (its crowd.task_types.TaskType: settings,
checks, storage, page context, review display, results, agreement, gold, imports),
`models.py` (what it stores, in the annotation app), `templates/` and `static/` (its page,
its agreement section, its ES module). Adding a type adds its package and one line here.
"""

PACKAGES = (
    "annotation.task_types.write",
    "annotation.task_types.align",
    "annotation.task_types.rate",
    "annotation.task_types.choose",
    "annotation.task_types.continuation",
    "annotation.task_types.continuation_choice",
    "annotation.task_types.cloze",
    "annotation.task_types.template",
)
