"""A PyIceberg client of tidemark's tables through Nessie's Iceberg REST catalog, for IcebergRestIT and the
timing in docs/performance.md. It connects exactly as a user would:

    load_catalog(type="rest", uri="http://127.0.0.1:19120/iceberg/<ref>", s3.endpoint=..., s3.access-key-id=...,
                 s3.secret-access-key=..., s3.path-style-access="true")

The S3 keys come from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY in the environment (never the command line).
Output is one JSON document on stdout; a failure is one line on stderr and exit 1.

    list                       namespaces and tables
    read TABLE...              every row of each table; timestamps as microseconds since the epoch (UTC)
    write TABLE                create the namespace and table if missing, append the rows read from stdin as
                               {"rows": [[id, name, amount, ts_micros], ...]}
    time TABLE N               seconds of N runs of: connect, load the table, read all of it into Arrow
"""

import argparse
import json
import os
import sys
import time

import pyarrow as pa
from pyiceberg.catalog import load_catalog

WRITE_SCHEMA = pa.schema([
    pa.field("id", pa.int32(), nullable=False),
    pa.field("name", pa.string()),
    pa.field("amount", pa.float64()),
    pa.field("ts", pa.timestamp("us", tz="UTC")),
])


def connect(args):
    return load_catalog("tidemark", **{
        "type": "rest",
        "uri": args.uri,
        "s3.endpoint": args.s3_endpoint,
        "s3.access-key-id": os.environ["AWS_ACCESS_KEY_ID"],
        "s3.secret-access-key": os.environ["AWS_SECRET_ACCESS_KEY"],
        "s3.path-style-access": "true",
    })


def plain(table):
    """Rows as JSON values; timestamps as integers so that both sides compare them exactly."""
    columns = []
    for field, column in zip(table.schema, table.columns):
        if pa.types.is_timestamp(field.type):
            column = column.cast(pa.timestamp("us", tz=field.type.tz)).cast(pa.int64())
        columns.append(column.to_pylist())
    return [list(row) for row in zip(*columns)] if columns else []


def cmd_list(catalog, args):
    namespaces = [".".join(ns) for ns in catalog.list_namespaces()]
    tables = [".".join(t) for ns in catalog.list_namespaces() for t in catalog.list_tables(ns)]
    return {"namespaces": namespaces, "tables": tables}


def cmd_read(catalog, args):
    out = {}
    for name in args.tables:
        table = catalog.load_table(name)
        data = table.scan().to_arrow()
        out[name] = {"columns": data.schema.names, "rows": plain(data),
                     "metadata_location": table.metadata_location}
    return out


def cmd_write(catalog, args):
    rows = json.load(sys.stdin)["rows"]
    namespace = args.table.rsplit(".", 1)[0]
    catalog.create_namespace_if_not_exists(namespace)
    table = catalog.create_table_if_not_exists(args.table, schema=WRITE_SCHEMA)
    columns = list(zip(*rows)) if rows else [[] for _ in WRITE_SCHEMA]
    data = pa.Table.from_arrays(
        [pa.array(columns[0], pa.int32()), pa.array(columns[1], pa.string()), pa.array(columns[2], pa.float64()),
         pa.array(columns[3], pa.int64()).cast(pa.timestamp("us", tz="UTC"))], schema=WRITE_SCHEMA)
    table.append(data)
    return {"table": args.table, "appended": len(rows), "snapshot": table.current_snapshot().snapshot_id}


def cmd_time(_catalog, args):
    seconds = []
    for _ in range(args.n):
        start = time.perf_counter()
        rows = connect(args).load_table(args.table).scan().to_arrow().num_rows
        seconds.append(time.perf_counter() - start)
    return {"table": args.table, "rows": rows, "seconds": seconds}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--uri", required=True, help="Iceberg REST URI, with the ref: http://host:port/iceberg/main")
    parser.add_argument("--s3-endpoint", required=True)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list")
    read = sub.add_parser("read")
    read.add_argument("tables", nargs="+")
    write = sub.add_parser("write")
    write.add_argument("table")
    timing = sub.add_parser("time")
    timing.add_argument("table")
    timing.add_argument("n", type=int)
    args = parser.parse_args()
    commands = {"list": cmd_list, "read": cmd_read, "write": cmd_write, "time": cmd_time}
    try:
        catalog = None if args.command == "time" else connect(args)
        result = commands[args.command](catalog, args)
    except Exception as e:  # one line for the caller, whatever PyIceberg raised
        print(f"error: {type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}", file=sys.stderr)
        sys.exit(1)
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
