"""Quality of crowd work: agreement measures, per-batch agreement reports, gold items."""
