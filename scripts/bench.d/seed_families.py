#!/usr/bin/env python3
"""Pre-mints what the other app families' scenarios of scripts/bench spend, through the services' real APIs, as
their unchanged apps would send it (the same requests as the demo's stories, Services/Suite/Demo*Story.swift).

    seed_families.py covidshield-codes   --issuer URL --token T --count N --out codes.txt
    seed_families.py covidshield-claims  --in codes.txt --out claims.txt          # KeyClaimRequest bodies
    seed_families.py covidshield-uploads --url URL --in codes.txt --out uploads.txt  # claimed here, then sealed
    seed_families.py protego-pins        --issuer URL --token T --count N --out pins.txt
    seed_families.py protego-uploads     --url URL --in pins.txt --out uploads.txt   # exchanged here for tokens
    seed_families.py lemon-devices       --url URL --server-key PEM --device-key PEM --count N --out devices.txt
    seed_families.py lemon-authentications --server-key PEM --device-key PEM --in devices.txt --count N --out auth.txt
    seed_families.py lemon-surveys       --url URL --in devices.txt --out surveys.txt

Every output line is one request: the hex of its body, after a tab-separated header value where the request
carries its own credential in a header (scripts/bench.d/pool-body.lua). Needs Debian's python3-nacl (NaCl boxes)
and python3-cryptography (LEMON's RSA). Any unexpected answer stops the run, as in seed.py.
"""
import argparse
import base64
import concurrent.futures
import json
import secrets
import sys
import time
import uuid

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding
from nacl.public import Box, PrivateKey, PublicKey

from seed import Client, field, read_lines, varint, write_lines

PROTOBUF = {"Content-Type": "application/x-protobuf"}
JSON = {"Content-Type": "application/json"}
KEY_COUNT = 14


def daily_keys(count=KEY_COUNT):
    """`count` fresh random keys, one for each day before today: their bytes and rolling start interval."""
    today = int(time.time()) // 86400
    return [(secrets.token_bytes(16), (today - 1 - day) * 144) for day in range(count)]


def parallel(function, values, workers):
    with concurrent.futures.ThreadPoolExecutor(workers) as pool:
        return list(pool.map(function, values, chunksize=32))


def protobuf_field(message, number):
    """The first length-delimited field `number` of a protobuf message (enough for the answers read here)."""
    position = 0
    while position < len(message):
        tag, position = read_varint(message, position)
        wire_type = tag & 7
        if wire_type == 0:
            _, position = read_varint(message, position)
        elif wire_type == 2:
            length, position = read_varint(message, position)
            if tag >> 3 == number:
                return message[position:position + length]
            position += length
        else:
            raise SystemExit(f"seed: unexpected protobuf wire type {wire_type}")
    raise SystemExit(f"seed: protobuf field {number} missing in {message[:64]!r}")


def read_varint(data, position):
    value = shift = 0
    while True:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, position


# MARK: CovidShield

def covidshield_codes(args):
    client = Client(args.issuer)
    headers = {"Authorization": f"Bearer {args.token}"}
    codes = parallel(lambda _: client.post("/new-key-claim", b"", headers, 200).decode().strip(), range(args.count), args.workers)
    write_lines(args.out, codes)


def claim_request(code, app_public_key):
    return field(1, 2, code.encode()) + field(2, 2, app_public_key)


def covidshield_claims(args):
    lines = [claim_request(code, bytes(PrivateKey.generate().public_key)).hex() for code in read_lines(args.input)]
    write_lines(args.out, lines)


def covidshield_uploads(args):
    client = Client(args.url)

    def one(code):
        app = PrivateKey.generate()
        answer = client.post("/claim-key", claim_request(code, bytes(app.public_key)), PROTOBUF, 200)
        server_public_key = protobuf_field(answer, 2)
        keys = b"".join(
            field(2, 2, field(1, 2, data) + field(2, 0, varint(start)) + field(3, 0, varint(144)) + field(4, 0, varint(4)))
            for data, start in daily_keys())
        upload = field(1, 2, field(1, 0, varint(int(time.time())))) + keys   # Upload: timestamp, keys
        nonce = secrets.token_bytes(Box.NONCE_SIZE)
        sealed = Box(app, PublicKey(server_public_key)).encrypt(upload, nonce).ciphertext
        return (field(1, 2, server_public_key) + field(2, 2, bytes(app.public_key))
                + field(3, 2, nonce) + field(4, 2, sealed)).hex()

    write_lines(args.out, parallel(one, read_lines(args.input), args.workers))


# MARK: ProteGO Safe

def protego_pins(args):
    client = Client(args.issuer)
    headers = {**JSON, "api-token": args.token}
    batches = [min(1000, args.count - start) for start in range(0, args.count, 1000)]

    def batch(size):
        body = json.dumps({"data": {"numberOfCodes": size, "duration": 3600}})
        return json.loads(client.post("/generateCodesBatch", body, headers, 200))["result"]

    write_lines(args.out, [pin for pins in parallel(batch, batches, 4) for pin in pins])


def protego_uploads(args):
    client = Client(args.url)

    def one(pin):
        answer = client.post("/getAccessToken", json.dumps({"data": {"code": pin}}), JSON, 200)
        token = json.loads(answer)["result"]["accessToken"]
        keys = [{"key": base64.b64encode(data).decode(), "rollingStartNumber": start, "rollingPeriod": 144, "transmissionRisk": 8}
                for data, start in daily_keys()]
        body = {"data": {"temporaryExposureKeys": keys, "regions": ["PL"], "platform": "android",
                         "appPackageName": "pl.gov.mc.protegosafe", "verificationPayload": token}}
        return json.dumps(body).encode().hex()

    write_lines(args.out, parallel(one, read_lines(args.input), args.workers))


# MARK: LEMON

def load_key(path):
    with open(path, "rb") as file:
        return serialization.load_pem_private_key(file.read(), password=None)


def device_body(app_id, device_key, server_key, registration=None):
    """A `POST /api/v1/devices` body as DemoLemonStory builds it: a fresh seed and pre-master secret (sealed for the
    server's key), and `<seed>:<unix seconds>` signed with the device's key."""
    seed = base64.b64encode(secrets.token_bytes(32)).decode()
    plain = f"{seed}:{int(time.time())}"
    signature = device_key.sign(plain.encode(), padding.PKCS1v15(), hashes.SHA256())
    oaep = padding.OAEP(mgf=padding.MGF1(hashes.SHA256()), algorithm=hashes.SHA256(), label=None)
    secret = server_key.public_key().encrypt(secrets.token_bytes(48), oaep)
    return {**(registration or {}), "appId": app_id, "seed": seed, "preMasterSecret": base64.b64encode(secret).decode(),
            "signature": {"plainTextData": plain, "signedData": base64.b64encode(signature).decode()}}


def lemon_devices(args):
    """Registers `count` devices (one RSA key for all: the server keeps a public key per AppId and cannot tell) and
    writes "<AppId>\\t<access token>" lines."""
    client = Client(args.url)
    device_key, server_key = load_key(args.device_key), load_key(args.server_key)
    registration = {
        "publicKey": base64.b64encode(device_key.public_key().public_bytes(
            serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)).decode(),
        "operatingSystem": "Android", "language": "en",
    }

    def one(_):
        app_id = str(uuid.uuid4()).upper()
        answer = client.post("/api/v1/devices", json.dumps(device_body(app_id, device_key, server_key, registration)), JSON, 201)
        return f"{app_id}\t{json.loads(answer)['data']['accessToken']}"

    write_lines(args.out, parallel(one, range(args.count), args.workers))


def lemon_authentications(args):
    """`count` authentications of the registered devices in turn, each with its own seed, signed now: they are good
    for LemonDeviceRules.signatureWindow (5 minutes)."""
    device_key, server_key = load_key(args.device_key), load_key(args.server_key)
    app_ids = [line.split("\t")[0] for line in read_lines(args.input)]
    lines = parallel(lambda i: json.dumps(device_body(app_ids[i % len(app_ids)], device_key, server_key)).encode().hex(),
                     range(args.count), args.workers)
    write_lines(args.out, lines)


def lemon_surveys(args):
    """One survey per registered device, as DemoLemonStory donates it: "Bearer <token>\\t<hex body>" lines."""
    tokens = [line.split("\t")[1] for line in read_lines(args.input)]
    answer = Client(args.url).get("/api/v1/symptoms?language=en", {"Authorization": f"Bearer {tokens[0]}"}, 200)
    symptoms = [item["key"] for item in json.loads(answer)["data"]][:2]
    yesterday = time.strftime("%Y-%m-%d", time.gmtime(time.time() - 86400))
    body = json.dumps({
        "Status": "Positive", "PositiveTestDate": f"{yesterday} 09:30:00", "IsSymptomatic": True, "Symptoms": symptoms,
        "SymptomsFrom": f"{yesterday} 08:00:00", "Country": "DE", "Language": "DE", "Age": 42,
    }).encode().hex()
    write_lines(args.out, [f"Bearer {token}\t{body}" for token in tokens])


def main():
    commands = {
        "covidshield-codes": covidshield_codes, "covidshield-claims": covidshield_claims,
        "covidshield-uploads": covidshield_uploads, "protego-pins": protego_pins, "protego-uploads": protego_uploads,
        "lemon-devices": lemon_devices, "lemon-authentications": lemon_authentications, "lemon-surveys": lemon_surveys,
    }
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=sorted(commands))
    parser.add_argument("--issuer", help="verification's issuer listener")
    parser.add_argument("--token", help="the issuer's token")
    parser.add_argument("--url", help="the submission service's app listener")
    parser.add_argument("--server-key", help="LEMON_ENCRYPTION_KEY's PEM file (its public half is the app's)")
    parser.add_argument("--device-key", help="an RSA private key in PEM that every bench device signs with")
    parser.add_argument("--count", type=int)
    parser.add_argument("--in", dest="input")
    parser.add_argument("--out", required=True)
    parser.add_argument("--workers", type=int, default=16)
    args = parser.parse_args()
    commands[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
