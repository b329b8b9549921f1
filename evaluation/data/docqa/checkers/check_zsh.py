"""Standalone checker for zsh_qa.jsonl (standard library only).

Verifies the set against the installed Debian package zsh-doc (HTML manual in
/usr/share/doc/zsh-common/html, also reachable as /usr/share/doc/zsh-doc/html).
Exit status 0 and "all checks passed" when everything holds.
"""
import collections
import html
import json
import os
import re
import sys
from html.parser import HTMLParser

ROOT = "/usr/share/doc/zsh-common/html"
PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "zsh_qa.jsonl")
KEYS = ["id", "question", "answers", "type", "gold_pages", "evidence", "style"]
TYPES = {"default", "setting", "command", "option", "function", "number", "limit",
         "definition", "yes-no", "how-to", "comparison", "unanswerable"}
STYLES = {"close", "paraphrase", "forum"}
N_ROWS, N_UNANSWERABLE, MAX_PER_PAGE = 30, 5, 2
YES_NO = {"yes": 3, "no": 2}

# Probe terms for each unanswerable question: none may occur (case-insensitive)
# in any file of the corpus folder, raw or entity-unescaped.
PROBES = {
    "zs-26": ["oh-my-zsh", "ohmyzsh", "oh my zsh", "zsh_theme", "agnoster"],
    "zs-27": ["hist_cloud_sync", "histcloudsync", "cloud"],
    "zs-28": ["json"],
    "zs-29": ["5.10", "zsh 6", "version 6"],
    "zs-30": ["powerlevel", "p10k", "instant prompt", "instant_prompt"],
}


class TextParser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.out, self.skip = [], 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self.skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self.skip:
            self.skip -= 1

    def handle_data(self, data):
        if not self.skip:
            self.out.append(data)


def ws(t):
    return re.sub(r"\s+", " ", t).strip()


def read(p):
    with open(os.path.join(ROOT, p), encoding="utf-8", errors="replace") as f:
        return f.read()


def text_parser(p):
    x = TextParser()
    x.feed(read(p))
    x.close()
    return ws(html.unescape("".join(x.out)))


def text_sed(p):  # like sed 's/<[^>]*>//g' followed by entity unescaping
    return ws(html.unescape(re.sub(r"<[^>]*>", "", read(p))))


def main():
    errs = []
    if not os.path.isdir(ROOT):
        print(f"corpus folder {ROOT} missing: apt-get install zsh-doc")
        return 1
    rows = []
    with open(PATH, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                errs.append(f"line {n}: blank line")
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as e:
                errs.append(f"line {n}: bad JSON: {e}")
    if len(rows) != N_ROWS:
        errs.append(f"expected {N_ROWS} rows, got {len(rows)}")
    ids = [r.get("id") for r in rows]
    if ids != [f"zs-{i:02d}" for i in range(1, len(rows) + 1)]:
        errs.append("ids must be zs-01, zs-02, ... in order without gaps or duplicates")

    pages = collections.Counter()
    types = collections.Counter()
    styles = collections.Counter()
    yn = collections.Counter()
    cache = {}
    for r in rows:
        i = r.get("id")
        if list(r.keys()) != KEYS:
            errs.append(f"{i}: keys {list(r.keys())} != {KEYS}")
            continue
        if not isinstance(r["question"], str) or not r["question"].strip():
            errs.append(f"{i}: empty question")
        for k in ("answers", "gold_pages", "evidence"):
            if not isinstance(r[k], list) or not all(isinstance(x, str) and x for x in r[k]):
                errs.append(f"{i}: {k} must be a list of non-empty strings")
        if r["type"] not in TYPES:
            errs.append(f"{i}: bad type {r['type']}")
        if r["style"] not in STYLES:
            errs.append(f"{i}: bad style {r['style']}")
        types[r["type"]] += 1
        styles[r["style"]] += 1

        if r["type"] == "unanswerable":
            if r["answers"] or r["gold_pages"] or r["evidence"]:
                errs.append(f"{i}: unanswerable must have empty answers, gold_pages, evidence")
            if i not in PROBES:
                errs.append(f"{i}: unanswerable question without probe terms")
            continue
        if i in PROBES:
            errs.append(f"{i}: has probe terms but is not unanswerable")
        if not r["answers"]:
            errs.append(f"{i}: no answers")
        if not r["gold_pages"]:
            errs.append(f"{i}: no gold page")
        if not r["evidence"]:
            errs.append(f"{i}: no evidence")
        for a in r["answers"]:
            if a != a.lower():
                errs.append(f"{i}: answer not lower-case: {a!r}")
        if r["type"] == "yes-no":
            if r["answers"] not in (["yes"], ["no"]):
                errs.append(f"{i}: yes-no answers must be exactly ['yes'] or ['no']")
            else:
                yn[r["answers"][0]] += 1
        elif r["answers"] in (["yes"], ["no"]):
            errs.append(f"{i}: yes/no answer on a non yes-no question")

        texts = []
        for p in r["gold_pages"]:
            pages[p] += 1
            if not os.path.isfile(os.path.join(ROOT, p)):
                errs.append(f"{i}: gold page missing: {p}")
                continue
            if p not in cache:
                cache[p] = (text_parser(p), text_sed(p))
            texts.append(cache[p])
        for e in r["evidence"]:
            if not any(e in t1 for t1, _ in texts):
                errs.append(f"{i}: evidence not verbatim in gold page text (html.parser): {e[:80]!r}")
            if not any(e in t2 for _, t2 in texts):
                errs.append(f"{i}: evidence not verbatim in gold page text (tag regex): {e[:80]!r}")
        if r["type"] != "yes-no":
            ev = " ".join(r["evidence"]).lower()
            missing = [a for a in r["answers"] if a not in ev]
            if len(missing) == len(r["answers"]):
                errs.append(f"{i}: no answer alias occurs in the evidence")
            elif missing:
                errs.append(f"{i}: aliases not in the evidence: {missing}")

    for p, c in pages.items():
        if c > MAX_PER_PAGE:
            errs.append(f"gold page {p} used by {c} questions (max {MAX_PER_PAGE})")
    if types["unanswerable"] != N_UNANSWERABLE:
        errs.append(f"expected {N_UNANSWERABLE} unanswerable, got {types['unanswerable']}")
    if dict(yn) != YES_NO:
        errs.append(f"yes/no split {dict(yn)} != {YES_NO}")

    corpus = {}
    for d, _, fs in os.walk(ROOT):
        for fn in fs:
            full = os.path.join(d, fn)
            with open(full, encoding="utf-8", errors="replace") as f:
                raw = f.read()
            corpus[os.path.relpath(full, ROOT)] = raw.lower() + "\n" + html.unescape(raw).lower()
    for qid, terms in PROBES.items():
        for t in terms:
            hits = sorted(p for p, x in corpus.items() if t.lower() in x)
            if hits:
                errs.append(f"{qid}: probe {t!r} occurs in {len(hits)} file(s), e.g. {hits[:3]}")

    print(f"rows: {len(rows)} | answerable: {len(rows) - types['unanswerable']} | corpus files: {len(corpus)}")
    print("types:", dict(sorted(types.items())))
    print("styles:", dict(sorted(styles.items())))
    print("yes/no:", dict(yn))
    if pages:
        print("distinct gold pages:", len(pages), "| max per page:", max(pages.values()))
    if errs:
        print("ERRORS:")
        for e in errs:
            print("  -", e)
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
