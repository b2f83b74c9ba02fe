"""Analytics over mjlog run directories (DuckDB/pandas), plots and reports."""
