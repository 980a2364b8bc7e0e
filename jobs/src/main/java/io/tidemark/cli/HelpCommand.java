package io.tidemark.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.IHelpCommandInitializable2;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;

/**
 * {@code tidemark help [<command> [<subcommand>]]}: the help of the command the words name, down to a subcommand
 * (picocli's own help command takes one word, so {@code help stream raw} printed the help of {@code stream}).
 */
@Command(name = "help", helpCommand = true, mixinStandardHelpOptions = true,
    description = "Print the help of a command, or of one of its subcommands (`tidemark help stream raw`).")
final class HelpCommand implements IHelpCommandInitializable2, Runnable {
  @Parameters(paramLabel = "<command>", arity = "0..*",
      description = "The command and subcommand whose help to print; none: the help of tidemark.")
  List<String> words = new ArrayList<>();

  private CommandLine self;
  private PrintWriter out;

  @Override
  public void init(CommandLine helpCommandLine, CommandLine.Help.ColorScheme colorScheme, PrintWriter out,
                   PrintWriter err) {
    this.self = helpCommandLine;
    this.out = out;
  }

  @Override
  public void run() {
    // picocli lets a help command's unknown options through (so that `help` never fails): named here instead
    List<String> unmatched = self.getParseResult().unmatched();
    if (!unmatched.isEmpty()) {
      throw new CommandLine.UnmatchedArgumentException(self, unmatched);
    }
    CommandLine target = self.getParent();
    for (String word : words) {
      CommandLine sub = target.getSubcommands().get(word);
      if (sub == null || sub.getCommand() instanceof HelpCommand) {
        throw new ParameterException(self, "no command '" + word + "' in " + target.getCommandSpec().qualifiedName(" ")
            + (target.getSubcommands().isEmpty() ? ", which has no subcommands"
            : "; its commands: " + String.join(", ", names(target))));
      }
      target = sub;
    }
    target.usage(out);
    out.flush();
  }

  private static List<String> names(CommandLine cl) {
    return cl.getSubcommands().entrySet().stream().filter(e -> !(e.getValue().getCommand() instanceof HelpCommand))
        .filter(e -> e.getKey().equals(e.getValue().getCommandName())).map(java.util.Map.Entry::getKey).toList();
  }
}
