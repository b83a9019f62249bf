"""The dataset's own models: proverbs and their curation, narratives, writing integrity,
the figurative benchmark, imports, the analysis and model-in-the-loop rounds (each task
type keeps its own in its package)."""

from annotation.models.analysis import DatasetAnalysis, TextScores
from annotation.models.figurative import ContinuationPair, FigurativeNarrative
from annotation.models.imports import ImportedFile, ImportJob
from annotation.models.integrity import NarrativeIntegrity, PilotLabel, WritingCalibration
from annotation.models.narratives import Narrative
from annotation.models.proverbs import CurationTarget, Proverb, VariantGroup
from annotation.models.rounds import NarrativeRound, OpponentCheck, OpponentEvaluation

__all__ = [
    "ContinuationPair",
    "CurationTarget",
    "DatasetAnalysis",
    "FigurativeNarrative",
    "ImportJob",
    "ImportedFile",
    "Narrative",
    "NarrativeIntegrity",
    "NarrativeRound",
    "OpponentCheck",
    "OpponentEvaluation",
    "PilotLabel",
    "Proverb",
    "TextScores",
    "VariantGroup",
    "WritingCalibration",
]
