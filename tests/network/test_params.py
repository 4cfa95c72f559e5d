"""Bad ``[network]`` parameters ``cnsim.network.params`` refuses, through ``cnsim topology``,
a scenario and the API, each with a clear one-line answer (harness: tests/refusals.py)."""

from __future__ import annotations

from refusals import Case, assert_refused, table

import cnsim

BAD_PARAMS: list[Case] = [
    # -- measured maps ([network] generator = 'topohub')
    Case(
        "topology-map-unknown",
        [
            "topology",
            "build",
            "--generator",
            "topohub",
            "--map",
            "caida/3356",
            "--brokers",
            "2",
            "--cache",
            "{d}/cache",
        ],
        r"network\.map = 'caida/3356' is not a measured map.*nearest: 'caida/2024-08/3356'",
    ),
    Case(
        "topology-map-missing",
        ["topology", "build", "--generator", "topohub", "--brokers", "2", "--cache", "{d}/cache"],
        r"network\.map = None is missing",
    ),
    Case(
        "run-map-brokers",
        [
            "run",
            "@[network]\ngenerator = 'topohub'\nmap = 'sndlib/polska'\nbrokers = 20\n"
            "[overlay]\nkind = 'meghdoot'\n",
            "--out",
            "{d}/o",
        ],
        r"network\.brokers = 20 is more than the 12 nodes of network\.map = 'sndlib/polska'",
    ),
    Case(
        "run-map-without-topohub",
        ["run", "@[network]\nmap = 'sndlib/polska'\n", "--out", "{d}/o"],
        r"network\.map = 'sndlib/polska' is set",
    ),
    Case(
        "api-map-unknown",
        api=lambda d: cnsim.Scenario(network={"generator": "topohub", "map": "nope", "brokers": 2}),
        message=r"network\.map = 'nope' is not a measured map",
    ),
    # -- keys and values
    Case(
        "network-unknown-key",
        ["run", "@[network]\nnodes = 2\n", "--out", "{d}/o"],
        r"network\.nodes",
    ),
    Case(
        "topology-brokers-0",
        ["topology", "build", "--brokers", "0", "--cache", "{d}/cache"],
        r"brokers",
    ),
    Case(
        "topology-generator",
        ["topology", "build", "--generator", "mesh", "--cache", "{d}/cache"],
        r"generator.*mesh",
    ),
]


@table(BAD_PARAMS)
def test_bad_network_is_refused_clearly(case: Case, bad_inputs, capsys, monkeypatch) -> None:
    assert_refused(case, bad_inputs, capsys, monkeypatch)
