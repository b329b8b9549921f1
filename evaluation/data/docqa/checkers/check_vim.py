#!/usr/bin/env python3
"""Standalone checker for vim_qa.jsonl (standard library only).

Verifies the set against the installed Debian package vim-doc, corpus folder
/usr/share/doc/vim/html. Exit 0 and print "all checks passed" when fine.
"""
import collections
import html
import json
import os
import re
import sys
from html.parser import HTMLParser

ROOT = "/usr/share/doc/vim/html"
PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vim_qa.jsonl")
N_ROWS, N_UNANSWERABLE = 30, 5
TYPES = {"default", "setting", "command", "option", "function", "number", "limit",
         "definition", "yes-no", "how-to", "comparison", "unanswerable"}
STYLES = {"close", "paraphrase", "forum"}
KEYS = ["id", "question", "answers", "type", "gold_pages", "evidence", "style"]
MAX_PER_PAGE = 2

# Probe terms (lower-case) for each unanswerable question: none may occur in any file of ROOT.
PROBES = {
    "vi-26": ["autosavedelay", "autosave delay", "autosave_delay"],
    "vi-27": ["copilot"],
    "vi-28": ["vim 9.5", "version 9.5", "vim9.5", "9.5.0"],
    "vi-29": ["minimap", "mini-map", "mini map"],
    "vi-30": ["webassembly", "wasm", "web assembly"],
}


def read(path):
    """The pages declare ISO-8859-1 but most are UTF-8; digraph.html is Latin-1."""
    raw = open(path, "rb").read()
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


class _Text(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.out.append(data)


def ws(t):
    return re.sub(r"\s+", " ", t).strip()


def text_parser(rel):
    p = _Text()
    p.feed(read(os.path.join(ROOT, rel)))
    p.close()
    return ws(html.unescape("".join(p.out)))


def text_sed(rel):  # sed 's/<[^>]*>//g' + entity unescape, as a second opinion
    return ws(html.unescape(re.sub(r"<[^>]*>", "", read(os.path.join(ROOT, rel)))))


def main():
    errs = []
    if not os.path.isdir(ROOT):
        print(f"corpus folder {ROOT} missing: apt-get install vim-doc")
        return 1
    rows = [json.loads(l) for l in open(PATH, encoding="utf-8") if l.strip()]
    if len(rows) != N_ROWS:
        errs.append(f"expected {N_ROWS} rows, got {len(rows)}")
    ids = [r.get("id") for r in rows]
    if len(set(ids)) != len(ids):
        errs.append("duplicate ids")
    if ids != [f"vi-{i:02d}" for i in range(1, len(rows) + 1)]:
        errs.append("ids are not vi-01 .. vi-NN in order")

    pagecount, types, styles, yn = (collections.Counter() for _ in range(4))
    unans = []
    for r in rows:
        i = r.get("id")
        if list(r.keys()) != KEYS:
            errs.append(f"{i}: keys {list(r.keys())}")
            continue
        if not re.fullmatch(r"vi-\d\d", i):
            errs.append(f"{i}: bad id")
        if not isinstance(r["question"], str) or not r["question"].strip():
            errs.append(f"{i}: empty question")
        if r["type"] not in TYPES:
            errs.append(f"{i}: bad type {r['type']}")
        if r["style"] not in STYLES:
            errs.append(f"{i}: bad style {r['style']}")
        for k in ("answers", "gold_pages", "evidence"):
            if not isinstance(r[k], list) or not all(isinstance(x, str) for x in r[k]):
                errs.append(f"{i}: {k} must be a list of strings")
        types[r["type"]] += 1
        styles[r["style"]] += 1

        if r["type"] == "unanswerable":
            unans.append(i)
            if r["answers"] or r["gold_pages"] or r["evidence"]:
                errs.append(f"{i}: unanswerable must have empty answers/gold_pages/evidence")
            if i not in PROBES:
                errs.append(f"{i}: unanswerable without probe terms")
            continue

        if not r["answers"]:
            errs.append(f"{i}: no answers")
        for a in r["answers"]:
            if a != a.lower() or not a.strip():
                errs.append(f"{i}: answer not lower-case / empty: {a!r}")
        if r["type"] == "yes-no":
            if r["answers"] not in (["yes"], ["no"]):
                errs.append(f"{i}: yes-no answers must be exactly ['yes'] or ['no']")
            else:
                yn[r["answers"][0]] += 1
        if len(r["gold_pages"]) != 1:
            errs.append(f"{i}: expected exactly one gold page")
        if not r["evidence"]:
            errs.append(f"{i}: no evidence")
        for p in r["gold_pages"]:
            pagecount[p] += 1
            if not os.path.isfile(os.path.join(ROOT, p)):
                errs.append(f"{i}: missing page {p}")
                continue
            t1, t2 = text_parser(p), text_sed(p)
            for e in r["evidence"]:
                if e != ws(e):
                    errs.append(f"{i}: evidence has uncollapsed whitespace: {e[:60]}")
                if e not in t1:
                    errs.append(f"{i}: evidence not in {p} (html.parser): {e[:70]}")
                if e not in t2:
                    errs.append(f"{i}: evidence not in {p} (sed-strip): {e[:70]}")
        if r["type"] != "yes-no":
            ev = " ".join(r["evidence"]).lower()
            if not any(a in ev for a in r["answers"]):
                errs.append(f"{i}: no answer alias occurs in the evidence")

    if len(unans) != N_UNANSWERABLE:
        errs.append(f"expected {N_UNANSWERABLE} unanswerable, got {len(unans)}")
    for p, c in pagecount.items():
        if c > MAX_PER_PAGE:
            errs.append(f"page {p} used {c} times (max {MAX_PER_PAGE})")

    # probe terms must occur in no file of the corpus folder (any file type)
    corpus = {}
    for d, _, fs in os.walk(ROOT):
        for f in fs:
            full = os.path.join(d, f)
            corpus[os.path.relpath(full, ROOT)] = read(full).lower()
    for qid, terms in PROBES.items():
        for t in terms:
            hits = [p for p, x in corpus.items() if t in x]
            if hits:
                errs.append(f"{qid}: probe '{t}' found in {hits[:3]}")

    print("rows:", len(rows), "| answerable:", len(rows) - len(unans), "| unanswerable:", len(unans))
    print("types:", dict(sorted(types.items())))
    print("styles:", dict(sorted(styles.items())))
    print("yes/no:", dict(yn))
    if pagecount:
        print("distinct gold pages:", len(pagecount), "| max per page:", max(pagecount.values()))
    print("files scanned for probes:", len(corpus))
    if errs:
        print("ERRORS:")
        for e in errs:
            print("  -", e)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
