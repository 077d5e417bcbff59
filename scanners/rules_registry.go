package scanners

// Rules for package registries and container hubs.

func registryRules() []ruleDef {
	return nil
}
