package scanners

// Rules for payment providers.

func paymentRules() []ruleDef {
	return nil
}
