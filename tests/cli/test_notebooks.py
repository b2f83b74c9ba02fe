"""Every notebook runs headless, top to bottom, on the committed sample data."""

from __future__ import annotations

from pathlib import Path

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


@pytest.fixture(scope="module")
def kernel():
    """One kernel for the notebooks of a test process: starting one and importing
    pandas, matplotlib and the analysis library cost seconds per notebook. Each
    notebook still starts from an empty namespace (``%reset -f``)."""
    # imported here, not at collection: nbformat's JSON schema checks alone take
    # seconds to import, in every test process, whether it runs a notebook or not
    from jupyter_client.manager import KernelManager

    # the kernel is this interpreter (ipykernel's own spec)
    km = KernelManager(kernel_name="python3")
    km.start_kernel(cwd=str(NOTEBOOKS[0].parent))
    yield km
    km.shutdown_kernel(now=True)


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 4


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs(path, kernel):
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    nb.cells.insert(0, nbformat.v4.new_code_cell("%reset -f"))
    # any error in a cell raises
    NotebookClient(
        nb,
        km=kernel,
        timeout=1800,  # per cell; generous: a busy machine is slow
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not [o for o in outputs if o.get("output_type") == "error"]
    assert any("image/png" in o.get("data", {}) for o in outputs) or path.stem.startswith("01")
