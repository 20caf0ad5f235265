package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRetrievalWeightsAreNumbers: the retrieval weights are float64 from
// the moment they load: a JSON number or an old quoted number in the file,
// a number in the environment or a flag; text that is no number is
// refused at load naming the setting as given, a number out of range by
// Validate, also naming it as given.
func TestRetrievalWeightsAreNumbers(t *testing.T) {
	file := filepath.Join(t.TempDir(), "hearth.json")
	os.WriteFile(file, []byte(`{"retrieve_vector_weight": 2.5, "retrieve_keyword_weight": "0.5"}`), 0o600)
	cfg, _, err := Load("serve", nil, envMap(map[string]string{"HEARTH_CONFIG": file}))
	if err != nil || cfg.Validate() != nil || cfg.RetrieveVectorWeight != 2.5 || cfg.RetrieveKeywordWeight != 0.5 {
		t.Fatalf("file: %v %v %v", err, cfg.RetrieveVectorWeight, cfg.RetrieveKeywordWeight)
	}
	cfg, _, err = Load("serve", []string{"-retrieve-keyword-weight", "0"}, envMap(map[string]string{"HEARTH_CONFIG": file, "HEARTH_RETRIEVE_VECTOR_WEIGHT": " 3 "}))
	if err != nil || cfg.Validate() != nil {
		t.Fatal(err)
	}
	if f := cfg.App(nil, nil, "").Memory.Fusion; f.VectorWeight != 3 || f.KeywordWeight != 0 {
		t.Fatalf("env and flag over the file: %+v", f)
	}
	if _, _, err := Load("serve", nil, envMap(map[string]string{"HEARTH_RETRIEVE_VECTOR_WEIGHT": "heavy"})); err == nil || !strings.Contains(err.Error(), `HEARTH_RETRIEVE_VECTOR_WEIGHT: must be a number between 0 and 100, got "heavy"`) {
		t.Errorf("heavy: %v", err)
	}
	cfg, _, _ = Load("serve", []string{"-retrieve-vector-weight", "101"}, envMap(nil))
	if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), `-retrieve-vector-weight: must be a number between 0 and 100, got "101"`) {
		t.Errorf("101: %v", err)
	}
	os.WriteFile(file, []byte(`{"retrieve_vector_weight": "x"}`), 0o600)
	if _, _, err := Load("serve", nil, envMap(map[string]string{"HEARTH_CONFIG": file})); err == nil || !strings.Contains(err.Error(), `retrieve_vector_weight: must be a number between 0 and 100, got "x"`) {
		t.Errorf("file x: %v", err)
	}
}
