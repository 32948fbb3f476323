// An independent check of Signet's activity log, with Go's checksum-database packages
// (golang.org/x/mod/sumdb/note and sumdb/tlog, Debian's golang-golang-x-mod-dev): the signed
// notes open under the log's verifier key, the inclusion and consistency proofs check against
// the roots those notes sign, and the leaves hash to the latest root. Nothing here comes from
// Signet's own code.
//
// Usage: go run main.go INPUT.json; exit 0 when every check holds, 1 with the first failure.
package main

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

type inclusion struct {
	Leaf       string   `json:"leaf"`
	LeafIndex  string   `json:"leafIndex"`
	TreeSize   string   `json:"treeSize"`
	Proof      []string `json:"proof"`
	Checkpoint string   `json:"checkpoint"`
}

type consistency struct {
	FirstCheckpoint string   `json:"firstCheckpoint"`
	Checkpoint      string   `json:"checkpoint"`
	Proof           []string `json:"proof"`
}

type input struct {
	VerifierKey string        `json:"verifierKey"`
	Checkpoint  string        `json:"checkpoint"`
	Leaves      []string      `json:"leaves"`
	Inclusions  []inclusion   `json:"inclusions"`
	Consistency []consistency `json:"consistency"`
}

type tree struct {
	size int64
	root tlog.Hash
}

func fail(format string, args ...interface{}) {
	fmt.Printf("FAIL "+format+"\n", args...)
	os.Exit(1)
}

// open checks a checkpoint's signature and parses its C2SP body: origin, size, base64 root.
func open(text string, verifier note.Verifier) tree {
	n, err := note.Open([]byte(text), note.VerifierList(verifier))
	if err != nil {
		fail("checkpoint does not open: %v", err)
	}
	lines := strings.Split(strings.TrimSuffix(n.Text, "\n"), "\n")
	if len(lines) < 3 || lines[0] != verifier.Name() {
		fail("checkpoint body is not <origin>\\n<size>\\n<root>: %q", n.Text)
	}
	size, err := strconv.ParseInt(lines[1], 10, 64)
	if err != nil {
		fail("checkpoint size %q: %v", lines[1], err)
	}
	root, err := base64.StdEncoding.DecodeString(lines[2])
	if err != nil || len(root) != tlog.HashSize {
		fail("checkpoint root %q is not a base64 hash", lines[2])
	}
	var t tree
	t.size = size
	copy(t.root[:], root)
	return t
}

func hashes(list []string) []tlog.Hash {
	out := make([]tlog.Hash, len(list))
	for i, h := range list {
		b, err := hex.DecodeString(h)
		if err != nil || len(b) != tlog.HashSize {
			fail("proof hash %q is not 32 bytes of hex", h)
		}
		copy(out[i][:], b)
	}
	return out
}

func number(s string) int64 {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		fail("%q is not a number", s)
	}
	return n
}

func main() {
	if len(os.Args) != 2 {
		fail("usage: main INPUT.json")
	}
	data, err := os.ReadFile(os.Args[1])
	if err != nil {
		fail("%v", err)
	}
	var in input
	if err := json.Unmarshal(data, &in); err != nil {
		fail("input: %v", err)
	}
	verifier, err := note.NewVerifier(in.VerifierKey)
	if err != nil {
		fail("verifier key: %v", err)
	}
	latest := open(in.Checkpoint, verifier)

	// The tree recomputed from the leaves, with tlog's own storage layout.
	var stored []tlog.Hash
	reader := tlog.HashReaderFunc(func(indexes []int64) ([]tlog.Hash, error) {
		out := make([]tlog.Hash, len(indexes))
		for i, x := range indexes {
			out[i] = stored[x]
		}
		return out, nil
	})
	for i, leaf := range in.Leaves {
		more, err := tlog.StoredHashes(int64(i), []byte(leaf), reader)
		if err != nil {
			fail("leaf %d: %v", i, err)
		}
		stored = append(stored, more...)
	}
	if int64(len(in.Leaves)) != latest.size {
		fail("%d leaves given for a checkpoint of %d", len(in.Leaves), latest.size)
	}
	root, err := tlog.TreeHash(latest.size, reader)
	if err != nil || root != latest.root {
		fail("the %d leaves hash to %v, the checkpoint signs %v", latest.size, root, latest.root)
	}

	for _, p := range in.Inclusions {
		t := open(p.Checkpoint, verifier)
		if t.size != number(p.TreeSize) {
			fail("inclusion proof for tree size %s comes with a checkpoint of size %d", p.TreeSize, t.size)
		}
		err := tlog.CheckRecord(tlog.RecordProof(hashes(p.Proof)), t.size, t.root,
			number(p.LeafIndex), tlog.RecordHash([]byte(p.Leaf)))
		if err != nil {
			fail("leaf %s in tree %d: %v", p.LeafIndex, t.size, err)
		}
	}
	for _, c := range in.Consistency {
		first, second := open(c.FirstCheckpoint, verifier), open(c.Checkpoint, verifier)
		err := tlog.CheckTree(tlog.TreeProof(hashes(c.Proof)), second.size, second.root,
			first.size, first.root)
		if err != nil {
			fail("tree %d is not a prefix of tree %d: %v", first.size, second.size, err)
		}
	}
	fmt.Printf("OK %d leaves, %d inclusion proofs, %d consistency proofs\n", len(in.Leaves),
		len(in.Inclusions), len(in.Consistency))
}
