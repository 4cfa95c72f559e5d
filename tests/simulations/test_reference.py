"""The docs' tables of scenario keys and metrics are generated from the declarations
(SCHEMA, NETWORK_SCHEMA, CATALOG): they fail here when the code and docs drift."""

from pathlib import Path

import pytest

from cnsim.network.params import NETWORK_SCHEMA
from cnsim.simulations.config import SCHEMA
from cnsim.simulations.metrics import CATALOG
from cnsim.simulations.reference import TABLES, main

DOCS = Path(__file__).resolve().parents[2] / "docs"


@pytest.mark.parametrize("name", sorted(TABLES))
def test_the_docs_table_is_the_generated_one(name):
    on_disk = (DOCS / name).read_text(encoding="utf-8")
    assert on_disk == TABLES[name](), (
        f"docs/{name} differs from the declarations: run "
        "`python -m cnsim.simulations.reference docs`"
    )


def test_every_key_and_metric_has_a_row():
    keys, metrics = TABLES["KEYS.md"](), TABLES["METRICS.md"]()
    for section, table in {**SCHEMA, "network": NETWORK_SCHEMA}.items():
        for name in table:
            assert f"| `{f'{section}.{name}' if section else name}` |" in keys
    assert all(f"| `{m.name}` |" in metrics for m in CATALOG)


def test_writing_the_tables_needs_an_existing_folder(tmp_path):
    with pytest.raises(SystemExit, match="existing folder"):
        main([str(tmp_path / "missing")])
    main([str(tmp_path)])
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(TABLES)
