"""What iolab reads in the log of a fio server it started: the lines that say something went wrong."""

from __future__ import annotations

from iolab.cluster.hosts import HostSpec
from iolab.cluster.servers import server_command, server_trouble, stop_command

# fio 3.33's stderr when a job process of its server finds its client gone (seen in `iolab agent`'s output,
# and made again on this VM by a probe client killed once the server had answered a null job).
ASSERTION = "fio: server.c:2341: fio_server_send_start: Assertion `sk_out->sk != -1' failed."


def test_a_failed_assertion_is_trouble_once_and_a_quiet_log_is_none():
    assert server_trouble(f"{ASSERTION}\n{ASSERTION}\n") == [ASSERTION]
    assert server_trouble("") == []


def test_the_server_logs_into_its_private_directory_and_stop_reads_the_log_back():
    start = server_command(HostSpec("h", "10.0.0.1", 8765, fio="/opt/fio/bin/fio"))
    assert "--daemonize" not in start  # fio's daemon closes its stderr, where an assertion goes
    assert '>"$dir/server.log" 2>&1' in start and 'echo $p >"$dir/fio.pid"' in start
    assert '--server=sock:"$dir/fio.sock"' in start  # a Unix socket in the private directory, never TCP
    stop = stop_command("/tmp/iolab-fio-server.AbCdEfGhIj")
    assert stop.index('tail -c 65536 "$d/server.log"') < stop.index('rm -rf -- "$d"')
