// compose-config loads a compose file with compose-go, the loader of Docker Compose v2 (`docker compose`), and
// prints the project it resolves as YAML, or the loader's errors and exit status 1. The tests run it next to
// Debian's docker-compose 1.29, so that the stack is checked by the parser its users actually run.
//
//	compose-config FILE ENV_FILE PROJECT_DIR [PROFILE...]
package main

import (
	"context"
	"fmt"
	"os"

	"github.com/compose-spec/compose-go/v2/cli"
)

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: compose-config FILE ENV_FILE PROJECT_DIR [PROFILE...]")
		os.Exit(2)
	}
	options, err := cli.NewProjectOptions([]string{os.Args[1]},
		cli.WithEnvFiles(os.Args[2]), cli.WithDotEnv, cli.WithName("tidemark"),
		cli.WithWorkingDirectory(os.Args[3]), cli.WithProfiles(os.Args[4:]))
	if err != nil {
		fail(err)
	}
	project, err := options.LoadProject(context.Background())
	if err != nil {
		fail(err)
	}
	out, err := project.MarshalYAML()
	if err != nil {
		fail(err)
	}
	os.Stdout.Write(out)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
