package scanners

// Rules for generic context rules for unprefixed secrets.

func contextRules() []ruleDef {
	return nil
}
