package pipeline

import (
	"math/rand/v2"
	"reflect"
)

// fillUnset fills again (fillEvidence) the fields of the struct v that
// allSet finds unset, and leaves the others as they are, so that a record
// with every field set is reached in a few rounds however many fields
// Evidence has.
func fillUnset(r *rand.Rand, v reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		switch {
		case f.IsZero(), (f.Kind() == reflect.Slice || f.Kind() == reflect.Map) && f.Len() == 0:
			fillEvidence(r, f)
		case f.Kind() == reflect.Pointer && f.Elem().Kind() == reflect.Struct:
			fillUnset(r, f.Elem())
		case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.Struct && !allSet(f.Index(0)):
			fillUnset(r, f.Index(0))
		}
	}
}
