"""Tests of the PettingZoo/Gymnasium environments."""
