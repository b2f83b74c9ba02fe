"""Tests of the core: tiles, hand analysis, rules and rule keys, the engine's flow per variant, scoring, goldens."""
