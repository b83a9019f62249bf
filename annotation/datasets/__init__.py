"""The dataset as files: ePiC import, exports, splits, selectors reading narratives in chunks."""
