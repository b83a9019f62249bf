"""The baselines' paragraph of the methods statement, added through annotation's hook."""

import pytest

from annotation.analysis.methods import methods_document
from annotation.analysis.methods_render import methods_markdown
from annotation.analysis.selectors import dataset_analysis
from tests.modeling.test_admin import finished_series

pytestmark = pytest.mark.django_db


def test_the_methods_statement_reports_each_series_with_model_seeds_and_mean_and_sd():
    finished_series([0.2, 0.3, 0.4])
    text = methods_markdown(methods_document(analysis=dataset_analysis()))
    assert "### Baselines" in text
    assert "Proverb prediction, classifier" in text and "tiny" in text
    assert "accuracy 30.00 ± 10.00" in text and "mean ± sd over 3 seeds (1, 2, 3)" in text
    assert "| classifier seen accuracy (runs 1, 2, 3) | 30.00 ± 10.00 |" in text


def test_without_finished_runs_the_statement_says_so():
    text = methods_markdown(methods_document(analysis=dataset_analysis()))
    assert "No baseline run has finished on this data yet." in text
