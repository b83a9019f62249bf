"""Dataset exports: the data files with the dataset card and the methods statement beside
them, written from the dataset (annotation.datasets) and its analysis (annotation.analysis)."""
