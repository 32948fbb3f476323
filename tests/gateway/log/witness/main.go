// A log witness for the activity log's tests, after the C2SP witness protocol
// (https://c2sp.org/tlog-witness): POST /add-checkpoint with "old N", a consistency proof and
// a checkpoint. It opens the checkpoint with Go's sumdb/note under the log's verifier key,
// checks the proof with sumdb/tlog's CheckTree against the last checkpoint it cosigned, and
// answers a cosignature/v1 line (https://c2sp.org/tlog-cosignature). The cosignature format is
// our reading of C2SP, as no packaged witness exists in Debian or npm; the note and the
// consistency check are Go's.
//
// Usage: go run main.go LOG_VERIFIER_KEY. Prints "http://127.0.0.1:PORT VERIFIER_KEY", then a
// line per checkpoint it cosigns ("cosigned N from M"); exits when its standard input closes.
package main

import (
	"bufio"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/sumdb/note"
	"golang.org/x/mod/sumdb/tlog"
)

const name = "witness.test/w1"

func main() {
	logKey, err := note.NewVerifier(os.Args[1])
	if err != nil {
		fmt.Println("log verifier key:", err)
		os.Exit(1)
	}
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	hash := sha256.Sum256(append([]byte(name+"\n\x04"), pub...))
	vkey := fmt.Sprintf("%s+%x+%s", name, hash[:4],
		base64.StdEncoding.EncodeToString(append([]byte{4}, pub...)))

	var mu sync.Mutex
	var size int64
	var root tlog.Hash

	http.HandleFunc("/add-checkpoint", func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		head, checkpoint, ok := strings.Cut(string(body), "\n\n")
		if !ok {
			http.Error(w, "no blank line", http.StatusBadRequest)
			return
		}
		lines := strings.Split(head, "\n")
		old, err := strconv.ParseInt(strings.TrimPrefix(lines[0], "old "), 10, 64)
		if err != nil || !strings.HasPrefix(lines[0], "old ") {
			http.Error(w, "no old size", http.StatusBadRequest)
			return
		}
		var proof tlog.TreeProof
		for _, l := range lines[1:] {
			b, err := base64.StdEncoding.DecodeString(l)
			if err != nil || len(b) != tlog.HashSize {
				http.Error(w, "bad proof line", http.StatusBadRequest)
				return
			}
			var h tlog.Hash
			copy(h[:], b)
			proof = append(proof, h)
		}
		n, err := note.Open([]byte(checkpoint), note.VerifierList(logKey))
		if err != nil {
			http.Error(w, "checkpoint: "+err.Error(), http.StatusForbidden)
			return
		}
		text := strings.Split(n.Text, "\n")
		if len(text) < 4 {
			http.Error(w, "not a checkpoint", http.StatusBadRequest)
			return
		}
		newSize, err1 := strconv.ParseInt(text[1], 10, 64)
		rootBytes, err2 := base64.StdEncoding.DecodeString(text[2])
		if err1 != nil || err2 != nil || len(rootBytes) != tlog.HashSize {
			http.Error(w, "not a checkpoint", http.StatusBadRequest)
			return
		}
		var newRoot tlog.Hash
		copy(newRoot[:], rootBytes)

		mu.Lock()
		defer mu.Unlock()
		if old != size {
			w.Header().Set("Content-Type", "text/x.tlog.size")
			w.WriteHeader(http.StatusConflict)
			fmt.Fprintf(w, "%d\n", size)
			return
		}
		if newSize < size {
			http.Error(w, "smaller than the last", http.StatusBadRequest)
			return
		}
		if size > 0 {
			if err := tlog.CheckTree(proof, newSize, newRoot, size, root); err != nil {
				http.Error(w, "consistency: "+err.Error(), http.StatusUnprocessableEntity)
				return
			}
		} else if len(proof) != 0 {
			http.Error(w, "a proof from an empty tree", http.StatusUnprocessableEntity)
			return
		}
		fmt.Printf("cosigned %d from %d\n", newSize, size)
		size, root = newSize, newRoot

		now := uint64(time.Now().Unix())
		msg := fmt.Sprintf("cosignature/v1\ntime %d\n%s", now, n.Text)
		sig := make([]byte, 0, 76)
		sig = append(sig, hash[:4]...)
		sig = binary.BigEndian.AppendUint64(sig, now)
		sig = append(sig, ed25519.Sign(priv, []byte(msg))...)
		fmt.Fprintf(w, "\u2014 %s %s\n", name, base64.StdEncoding.EncodeToString(sig))
	})

	listener, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	fmt.Printf("http://%s %s\n", listener.Addr(), vkey)
	go http.Serve(listener, nil)
	bufio.NewReader(os.Stdin).ReadString(0) // until stdin closes
}
