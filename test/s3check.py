#!/usr/bin/python3
# test/s3check.py - an S3 client that is not ours: Debian's python3-boto3
# judges what tracer's push= stored, and checks the server itself.
#
#   s3check.py list PREFIX      "KEY SIZE" per object under PREFIX, in key order
#   s3check.py head KEY         its user metadata (x-amz-meta-*), "name=value" lines
#   s3check.py get KEY OUT      the object into file OUT ("-": stdout)
#   s3check.py put KEY FILE [name=value]...   upload FILE, with that metadata
#   s3check.py mkbucket         create the bucket (there already: fine)
#
# The server from the environment, as test/s3.sh prints it (s3_up in
# test/lib.sh exports these): S3_ENDPOINT S3_ACCESS S3_SECRET S3_BUCKET,
# S3_REGION (us-east-1). Path-style URLs, SigV4, no retries (a refusal
# shows as it came). A refused request prints "s3check: OP KEY: HTTP
# STATUS CODE: message" on stderr. Exit 0 ok, 1 refused or failed, 2 usage.
import os
import sys

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError


def client():
    env = os.environ
    opts = dict(signature_version="s3v4", s3={"addressing_style": "path"},
                retries={"max_attempts": 1}, connect_timeout=10, read_timeout=60)
    try:
        # boto3 1.36 on adds CRC checksums to every PUT by default; only
        # the plain SigV4 request is what we check (and what Swift knows)
        cfg = Config(request_checksum_calculation="when_required",
                     response_checksum_validation="when_required", **opts)
    except TypeError:
        cfg = Config(**opts)
    return boto3.session.Session().client(
        "s3", endpoint_url=env["S3_ENDPOINT"], region_name=env.get("S3_REGION", "us-east-1"),
        aws_access_key_id=env["S3_ACCESS"], aws_secret_access_key=env["S3_SECRET"], config=cfg)


def do_list(s3, b, prefix):
    objs = []
    for page in s3.get_paginator("list_objects_v2").paginate(Bucket=b, Prefix=prefix):
        objs += [(o["Key"], o["Size"]) for o in page.get("Contents", [])]
    for k, n in sorted(objs):
        print(k, n)


def do_head(s3, b, key):
    for k, v in sorted(s3.head_object(Bucket=b, Key=key)["Metadata"].items()):
        print("%s=%s" % (k, v))


def do_get(s3, b, key, out):
    body = s3.get_object(Bucket=b, Key=key)["Body"]
    f = sys.stdout.buffer if out == "-" else open(out, "wb")
    for chunk in iter(lambda: body.read(65536), b""):
        f.write(chunk)
    f.flush()


def do_put(s3, b, key, path, *meta):
    if not all("=" in m for m in meta):
        usage()
    with open(path, "rb") as f:
        s3.put_object(Bucket=b, Key=key, Body=f, Metadata=dict(m.split("=", 1) for m in meta))


def do_mkbucket(s3, b):
    try:
        s3.create_bucket(Bucket=b)
    except ClientError as e:
        if e.response["Error"].get("Code") != "BucketAlreadyOwnedByYou":
            raise


OPS = {"list": (do_list, 1), "head": (do_head, 1), "get": (do_get, 2), "put": (do_put, 2),
       "mkbucket": (do_mkbucket, 0)}


def usage():
    sys.stderr.write("usage: s3check.py list PREFIX | head KEY | get KEY OUT | put KEY FILE [name=value]... | mkbucket\n"
                     "  (server from S3_ENDPOINT S3_ACCESS S3_SECRET S3_BUCKET [S3_REGION])\n")
    sys.exit(2)


def main(argv):
    if len(argv) < 2 or argv[1] not in OPS:
        usage()
    fn, nargs = OPS[argv[1]]
    args = argv[2:]
    if len(args) < nargs or (len(args) > nargs and fn is not do_put):
        usage()
    what = " ".join([argv[1]] + args[:1])
    try:
        fn(client(), os.environ["S3_BUCKET"], *args)
    except KeyError as e:
        sys.exit("s3check: %s: %s is not set" % (what, e))
    except ClientError as e:
        r = e.response
        sys.exit("s3check: %s: HTTP %s %s: %s" % (what, r["ResponseMetadata"].get("HTTPStatusCode"),
                                                  r["Error"].get("Code"), r["Error"].get("Message", "")))
    except (BotoCoreError, OSError) as e:
        sys.exit("s3check: %s: %s" % (what, e))


if __name__ == "__main__":
    main(sys.argv)
