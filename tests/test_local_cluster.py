"""The throwaway local cluster starts even when a port it picked is taken before its node binds it.

The suite's cluster, the benches' and CI's pick free ports, then start their nodes; in
between, another process's outgoing connection can take one (local ports come from the
same range). The node then exits at once, and the cluster must start it elsewhere
rather than wait for an answer that never comes.
"""

from __future__ import annotations

import socket
import tempfile
from pathlib import Path

import pytest

from agents_club_cli import local_cluster
from agents_club_cli.local_cluster import LocalCluster, cluster_tools_missing
from tests.conftest import CLUSTER_OFF, CLUSTER_TESTS

pytestmark = [
    pytest.mark.skipif(not CLUSTER_TESTS, reason=CLUSTER_OFF),
    pytest.mark.skipif(cluster_tools_missing() is not None,
                       reason=f"NO REDIS CLUSTER TESTS: {cluster_tools_missing()}"),
]


def test_a_node_whose_port_was_taken_starts_on_another(monkeypatch: pytest.MonkeyPatch) -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        taken = int(squatter.getsockname()[1])
        picks = iter([[taken, *local_cluster._free_ports(5, besides=[taken])]])
        real = local_cluster._free_ports
        monkeypatch.setattr(local_cluster, "_free_ports",
                            lambda count, besides=None: next(picks, None) or real(count, besides=besides))
        with (tempfile.TemporaryDirectory(prefix="agents-club-cluster-") as data_dir,
              LocalCluster(Path(data_dir)) as cluster):
            assert taken not in cluster.ports and len(set(cluster.ports)) == 6
            assert "cluster_state:ok" in cluster._cli(cluster.ports[0], "CLUSTER", "INFO")
            assert all(process.poll() is None for process in cluster.processes.values())
            assert set(cluster.processes) == set(cluster.ports)
