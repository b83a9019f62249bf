"""The dataset's own models: proverbs and their curation, narratives, writing integrity,
the figurative narratives benchmark, imports and the analysis. Each task type keeps the
models of what it stores in its own package (annotation.task_types)."""

from annotation.models.analysis import DatasetAnalysis
from annotation.models.figurative import ContinuationPair, FigurativeNarrative
from annotation.models.imports import ImportedFile, ImportJob
from annotation.models.integrity import NarrativeIntegrity, PilotLabel, WritingCalibration
from annotation.models.narratives import Narrative
from annotation.models.proverbs import CurationTarget, Proverb, VariantGroup

__all__ = [
    "ContinuationPair",
    "CurationTarget",
    "DatasetAnalysis",
    "FigurativeNarrative",
    "ImportJob",
    "ImportedFile",
    "Narrative",
    "NarrativeIntegrity",
    "PilotLabel",
    "Proverb",
    "VariantGroup",
    "WritingCalibration",
]
