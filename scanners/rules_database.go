package scanners

// Rules for database connection strings.

func databaseRules() []ruleDef {
	return nil
}
