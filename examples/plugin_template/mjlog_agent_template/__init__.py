"""A template mjlog agent package (see README.md): copy, rename, change ``choose``."""
