package scanners

// Rules for messaging and communication services.

func messagingRules() []ruleDef {
	return nil
}
