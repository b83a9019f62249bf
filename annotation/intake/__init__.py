"""What enters Parable from outside, checked once: JSON and text it can store, and files
read under the import size limit."""
