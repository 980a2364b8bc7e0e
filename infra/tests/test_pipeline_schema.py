"""The JSON Schema of the pipeline file (pipelines/pipeline.schema.json), as an editor checks a file against it.

Every pipeline file the repository ships validates; the mistakes a schema can see (an unknown field, a type that is not
one, a measure without its column, a duration that is not one) are refused; the Java reader's own checks go further
(a key that is no column, a sum over a string: PipelineFileTest). The schema and the reader name the same fields.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "pipelines" / "pipeline.schema.json").read_text())
FILES = sorted((ROOT / "pipelines").glob("*.yml"))
READER = (ROOT / "jobs" / "src" / "main" / "java" / "io" / "tidemark" / "pipeline" / "PipelineFile.java").read_text()
# the fields of `tables:`, which the reader takes from SharedTables.FIELDS
SHARED = (ROOT / "jobs" / "src" / "main" / "java" / "io" / "tidemark" / "pipeline" / "SharedTables.java").read_text()


def validator() -> jsonschema.Draft202012Validator:
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    return jsonschema.Draft202012Validator(SCHEMA)


def seed() -> dict:
    return yaml.safe_load((ROOT / "pipelines" / "seed.yml").read_text())


def test_the_shipped_files_validate():
    assert {f.name for f in FILES} >= {"seed.yml", "shop.yml"}
    for f in FILES:
        errors = [e.message for e in validator().iter_errors(yaml.safe_load(f.read_text()))]
        assert errors == [], f"{f.name}: {errors}"


@pytest.mark.parametrize("change, words", [
    (lambda p: p["facts"][0]["columns"][0].update(type="integer"), "does not match"),
    (lambda p: p["facts"][0].update(grup_by=["x"]), "Additional properties"),
    (lambda p: p["facts"][0]["aggregates"][0]["measures"][0].update(function="sum"), "'column' is a required"),
    (lambda p: p["facts"][0]["aggregates"][0]["measures"][0].update(function="avg"), "is not one of"),
    (lambda p: p["facts"][0]["aggregates"][0].pop("window"), "'window' is a required"),
    (lambda p: p["facts"][0]["dedup"].update(watermark="ten minutes"), "does not match"),
    (lambda p: p["dimensions"][0].pop("change_time"), "'change_time' is a required"),
    (lambda p: p["tables"].update(rejected="rejected"), "does not match"),
    (lambda p: p["facts"][0]["raw"].update(stream="all"), "should not be valid"),
    (lambda p: p["facts"][0]["columns"][2].update(name="window"), "should not be valid"),
    (lambda p: p["facts"][0]["columns"][2].update(name="__amount"), "does not match"),
])
def test_mistakes_a_schema_sees_are_refused(change, words):
    p = copy.deepcopy(seed())
    change(p)
    errors = [e.message for e in validator().iter_errors(p)]
    assert errors, "the changed file still validates"
    assert any(words in e for e in errors), errors


def test_the_schema_and_the_reader_name_the_same_fields():
    """Each field the schema declares is one the reader takes (its only(...) lists), and the other way round."""
    def fields(node) -> set[str]:
        out: set[str] = set()
        if isinstance(node, dict):
            out |= set(node.get("properties", {}))
            for v in node.values():
                out |= fields(v)
        elif isinstance(node, list):
            for v in node:
                out |= fields(v)
        return out

    schema_fields = fields(SCHEMA)
    reader_fields = set()
    for args in re.findall(r"\bonly\(([^)]*)\)", READER):
        reader_fields |= set(re.findall(r'"(\w+)"', args))
    shared = re.search(r"FIELDS = List\.of\(([^)]*)\)", SHARED)
    assert shared, "SharedTables.FIELDS was not found"
    reader_fields |= set(re.findall(r'"(\w+)"', shared.group(1)))
    assert reader_fields, "the reader's fields were not found"
    assert schema_fields - reader_fields == set()
    assert reader_fields - schema_fields == set()
