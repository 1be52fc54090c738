package dragonfly

import "testing"

func TestKnownAnswers(t *testing.T) {
	for _, k := range KnownAnswerTests() {
		if err := k.Run(); err != nil {
			t.Errorf("%s: %v", k.Name, err)
		}
	}
}
