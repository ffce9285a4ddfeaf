#!/usr/bin/env python3
"""A server that accepts connections and never answers: what a debuginfod
server behind a dropping firewall looks like to a client.

    silent_server.py PORTFILE COUNTFILE

Writes its port to PORTFILE, the number of connections so far to COUNTFILE
at each one, and runs until killed."""
import os
import socket
import sys

port_file, count_file = sys.argv[1], sys.argv[2]
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(64)
with open(count_file, "w") as f:
    f.write("0\n")
with open(port_file + ".tmp", "w") as f:
    f.write("%d\n" % s.getsockname()[1])
os.replace(port_file + ".tmp", port_file)
held = []
while True:
    c, _ = s.accept()
    held.append(c)  # open, silent
    with open(count_file, "w") as f:
        f.write("%d\n" % len(held))
