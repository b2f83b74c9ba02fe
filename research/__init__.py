"""Measuring tools: the experiments behind bench/results/, outside the wheel.

They import the product (``mjlog``, ``simulate``, ``analysis``); nothing of the
product imports them. ``make research`` runs their tests.
"""
