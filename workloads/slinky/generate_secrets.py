"""Create each Secret listed in $SECRETS_SPEC with fresh random bytes, unless it already exists."""
import base64
import json
import os
import ssl
import sys
import urllib.error
import urllib.request

ACCOUNT_DIR = os.environ.get("SERVICE_ACCOUNT_DIR", "/var/run/secrets/kubernetes.io/serviceaccount")


def read_account_file(name):
    with open(os.path.join(ACCOUNT_DIR, name), encoding="utf-8") as stream:
        return stream.read().strip()


def random_value(encoding, size):
    raw = os.urandom(size)
    # MariaDB and slurmdbd read a password as text; keys are used as raw bytes.
    return base64.urlsafe_b64encode(raw).rstrip(b"=") if encoding == "text" else raw


def main():
    host = os.environ["KUBERNETES_SERVICE_HOST"]
    if ":" in host:
        host = "[" + host + "]"
    namespace = read_account_file("namespace")
    url = "https://%s:%s/api/v1/namespaces/%s/secrets" % (host, os.environ["KUBERNETES_SERVICE_PORT"], namespace)
    context = ssl.create_default_context(cafile=os.path.join(ACCOUNT_DIR, "ca.crt"))
    headers = {"Authorization": "Bearer " + read_account_file("token"), "Content-Type": "application/json"}
    labels = json.loads(os.environ.get("SECRET_LABELS", "{}"))
    failures = 0
    for item in json.loads(os.environ["SECRETS_SPEC"]):
        value = random_value(item["encoding"], item["size"])
        body = {
            "apiVersion": "v1",
            "kind": "Secret",
            "type": "Opaque",
            "immutable": True,
            "metadata": {"name": item["name"], "labels": labels},
            "data": {item["key"]: base64.b64encode(value).decode("ascii")},
        }
        request = urllib.request.Request(url, data=json.dumps(body).encode(), headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, context=context, timeout=30):
                print("created Secret " + item["name"])
        except urllib.error.HTTPError as error:
            if error.code == 409:
                print("Secret %s already exists; left unchanged" % item["name"])
            else:
                print("creating Secret %s failed: HTTP %d" % (item["name"], error.code), file=sys.stderr)
                failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
