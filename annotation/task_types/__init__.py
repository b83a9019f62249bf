"""The dataset's task types, one package each (docs/ARCHITECTURE.md, "The task-type
interface"); `PACKAGES` is their registry: adding a type adds its package and a line here.
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
