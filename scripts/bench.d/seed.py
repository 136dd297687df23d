#!/usr/bin/env python3
"""Pre-mints what the one-time scenarios of scripts/bench spend, through the services' real APIs.

    seed.py results  --lab URL --key API_KEY --count N --out guids.txt    # positive results, batches of 1000
    seed.py register --url URL --in guids.txt --out tokens.txt             # one registration token per GUID
    seed.py tans     --url URL --in tokens.txt --out tans.txt              # one TAN per registration token
    seed.py payloads --in tans.txt --out submissions.txt                   # "<TAN> <hex SubmissionPayload>" lines
    seed.py payload  --out body.bin                                        # one binary SubmissionPayload

A hashed GUID is 64 random hex characters: the services only ever see the SHA-256 of a GUID, so a random one is
indistinguishable. Requests run on several threads with keep-alive connections; any unexpected answer stops
the run, so that a benchmark never starts on a half-filled pool.
"""
import argparse
import concurrent.futures
import http.client
import json
import secrets
import sys
import threading
import time
import urllib.parse

BATCH_SIZE = 1000


class Client:
    """One keep-alive HTTP/1.1 connection per worker thread."""

    def __init__(self, base_url):
        parts = urllib.parse.urlsplit(base_url)
        self.host, self.port = parts.hostname, parts.port
        self.local = threading.local()

    def post(self, path, body, headers, expected):
        return self.request("POST", path, body, headers, expected)

    def get(self, path, headers, expected):
        return self.request("GET", path, None, headers, expected)

    def request(self, method, path, body, headers, expected):
        for attempt in range(2):
            connection = getattr(self.local, "connection", None)
            if connection is None:
                connection = self.local.connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
            try:
                connection.request(method, path, body=body, headers=headers)
                response = connection.getresponse()
                data = response.read()
            except (http.client.HTTPException, ConnectionError):
                # A server may close an idle keep-alive connection: reconnect once.
                self.local.connection = None
                if attempt == 1:
                    raise
                continue
            if response.status != expected:
                raise SystemExit(f"seed: {method} {path} answered {response.status}, expected {expected}: {data[:200]!r}")
            return data


def post_json_each(url, path, values, make_body, field, workers):
    """POSTs one JSON body per value (cwa-fake: 0) and returns the answers' `field`, in order."""
    client = Client(url)
    headers = {"Content-Type": "application/json", "cwa-fake": "0"}

    def one(value):
        return json.loads(client.post(path, json.dumps(make_body(value)), headers, 201))[field]

    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(one, values, chunksize=64))


def read_lines(path):
    with open(path) as file:
        return [line.strip() for line in file if line.strip()]


def write_lines(path, lines):
    with open(path, "w") as file:
        file.writelines(line + "\n" for line in lines)


def varint(value):
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def field(number, wire_type, payload):
    """A protobuf field: tag, then the payload (length-prefixed for wire type 2)."""
    tag = varint(number << 3 | wire_type)
    return tag + (varint(len(payload)) + payload if wire_type == 2 else payload)


def submission_payload(key_count=14):
    """A SubmissionPayload as the apps send it (and as DemoStory builds it): one fresh random key per day before
    today, risk level falling with age, origin and visited country DE, PCR test."""
    today = int(time.time()) // 600 // 144 * 144
    keys = b""
    for day in range(key_count):
        key = (field(1, 2, secrets.token_bytes(16))            # key_data
               + field(2, 0, varint(8 - day // 3))             # transmission_risk_level
               + field(3, 0, varint(today - (1 + day) * 144))  # rolling_start_interval_number
               + field(4, 0, varint(144)))                     # rolling_period
        keys += field(1, 2, key)
    return (keys
            + field(3, 2, b"DE")        # visitedCountries
            + field(4, 2, b"DE")        # origin
            + field(5, 0, varint(0))    # consentToFederation
            + field(7, 0, varint(0)))   # submissionType: PCR test


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["results", "register", "tans", "payloads", "payload"])
    parser.add_argument("--lab", help="test-result lab listener, e.g. http://127.0.0.1:8020")
    parser.add_argument("--key", help="the lab's API key")
    parser.add_argument("--url", help="verification app-facing listener, e.g. http://127.0.0.1:8010")
    parser.add_argument("--count", type=int)
    parser.add_argument("--in", dest="input")
    parser.add_argument("--out", required=True)
    parser.add_argument("--workers", type=int, default=16)
    args = parser.parse_args()

    if args.command == "results":
        guids = [secrets.token_hex(32) for _ in range(args.count)]
        client = Client(args.lab)
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {args.key}"}

        def upload(start):
            batch = [{"id": guid, "result": 2} for guid in guids[start:start + BATCH_SIZE]]
            client.post("/api/v1/lab/results", json.dumps({"testResults": batch}), headers, 204)

        with concurrent.futures.ThreadPoolExecutor(4) as pool:
            list(pool.map(upload, range(0, len(guids), BATCH_SIZE)))
        write_lines(args.out, guids)
    elif args.command == "register":
        tokens = post_json_each(args.url, "/version/v1/registrationToken", read_lines(args.input),
                                lambda guid: {"key": guid, "keyType": "GUID"}, "registrationToken", args.workers)
        write_lines(args.out, tokens)
    elif args.command == "tans":
        tans = post_json_each(args.url, "/version/v1/tan", read_lines(args.input),
                              lambda token: {"registrationToken": token}, "tan", args.workers)
        write_lines(args.out, tans)
    elif args.command == "payloads":
        write_lines(args.out, [f"{tan} {submission_payload().hex()}" for tan in read_lines(args.input)])
    elif args.command == "payload":
        with open(args.out, "wb") as file:
            file.write(submission_payload())


if __name__ == "__main__":
    sys.exit(main())
