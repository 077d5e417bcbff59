package scanners

// Rules for identity providers and secret managers.

func identityRules() []ruleDef {
	return nil
}
