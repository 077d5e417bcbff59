package scanners

// Rules for observability and monitoring services.

func observabilityRules() []ruleDef {
	return nil
}
