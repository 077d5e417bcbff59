package scanners

// Rules for CI/CD services.

func ciRules() []ruleDef {
	return nil
}
