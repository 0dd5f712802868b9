package io.streamt.runner;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;

/**
 * The fixed streamt runner: reads one compiled kafka_streams_job plan and runs exactly its topology,
 * a stateless filter (AND-joined predicates) and projection over JSON object values.
 *
 * <p>It reports its state two ways, so status can read it without a shell in the container: one
 * line per state change on stdout ({@code streamt-runner state=RUNNING}) and the current state in
 * {@code /tmp/streamt-runner-state} (the image's health check compares it with RUNNING).
 */
public final class Runner {
  static final Path STATE_FILE = Path.of("/tmp/streamt-runner-state");
  static final int PLAN_VERSION = 1;
  static final long LEAVE_SECONDS = 10;
  private static final ObjectMapper JSON = new ObjectMapper();

  private Runner() {}

  public static void main(String[] args) throws Exception {
    String planPath = args.length > 0 ? args[0] : "/etc/streamt/plan.json";
    String stateDir = args.length > 1 ? args[1] : "/var/lib/streamt";
    JsonNode plan = JSON.readTree(new File(planPath));
    if (plan.path("plan_version").asInt() != PLAN_VERSION) {
      report("ERROR");
      System.out.println("streamt-runner refused plan_version=" + plan.path("plan_version").asText());
      System.exit(2);
    }
    if (!"json".equals(plan.path("value_format").asText())) {
      report("ERROR");
      System.out.println("streamt-runner refused value_format=" + plan.path("value_format").asText());
      System.exit(2);
    }
    Query query = Query.of(plan);
    StreamsBuilder builder = new StreamsBuilder();
    builder.stream(plan.path("input").path("topic").asText(), Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
        .flatMapValues(value -> query.apply(value))
        .to(plan.path("output_topic").asText(), Produced.with(Serdes.ByteArray(), Serdes.ByteArray()));

    Properties props = properties(plan, stateDir);
    KafkaStreams streams = new KafkaStreams(builder.build(), props);
    CountDownLatch done = new CountDownLatch(1);
    streams.setStateListener((now, before) -> {
      report(now.name());
      if (now == KafkaStreams.State.RUNNING) {
        System.out.println("streamt-runner ready application_id=" + plan.path("application_id").asText());
      }
      if (now == KafkaStreams.State.NOT_RUNNING) {
        done.countDown();
      }
    });
    // A failed stream thread stops the client and leaves it in ERROR: the runner stays up so that
    // status can read why, instead of restarting into the same failure.
    streams.setUncaughtExceptionHandler(exception -> {
      System.out.println("streamt-runner failure=" + exception.getClass().getSimpleName());
      return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
    });
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      streams.close();
      leaveGroup(props);
      done.countDown();
    }));
    report("CREATED");
    streams.start();
    done.await();
    // Stay alive in ERROR (the process only ends on a stop signal, via the shutdown hook).
    Thread.currentThread().join();
  }

  static Properties properties(JsonNode plan, String stateDir) {
    Properties props = new Properties();
    JsonNode runtime = plan.path("runtime");
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, plan.path("application_id").asText());
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, runtime.path("bootstrap_servers").asText());
    props.put(StreamsConfig.STATE_DIR_CONFIG, stateDir);
    // Kafka applies auto.offset.reset only when the group has no committed offsets, that is, for
    // a fresh application id; an existing one always resumes where it stopped.
    String initial = runtime.path("initial_offset").asText("latest");
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG), initial);
    props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "1000");
    String user = System.getenv("STREAMT_KAFKA_SASL_USERNAME");
    String password = System.getenv("STREAMT_KAFKA_SASL_PASSWORD");
    if (user != null && !user.isEmpty()) {
      String protocol = System.getenv().getOrDefault("STREAMT_KAFKA_SECURITY_PROTOCOL", "SASL_PLAINTEXT");
      props.put("security.protocol", protocol);
      props.put("sasl.mechanism", "PLAIN");
      props.put(
          "sasl.jaas.config",
          "org.apache.kafka.common.security.plain.PlainLoginModule required username=\""
              + jaasEscape(user) + "\" password=\"" + jaasEscape(password == null ? "" : password) + "\";");
    }
    return props;
  }

  /**
   * Takes this application's members out of its consumer group once close() has committed its offsets.
   *
   * <p>Kafka Streams closes its consumers without a LeaveGroup request, so the broker keeps a stopped
   * runner's member until its session times out (45 s), and the next runner of the application id (a
   * replacement's candidate, or this one restarted) gets no partitions before that. One runner runs
   * per application id, so every member left in the group is this stopped runner's. Best effort: a
   * failure only leaves the member to time out, as before.
   */
  static void leaveGroup(Properties streamsProps) {
    Properties adminProps = new Properties();
    for (String key : List.of(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "security.protocol", "sasl.mechanism", "sasl.jaas.config")) {
      if (streamsProps.containsKey(key)) {
        adminProps.put(key, streamsProps.get(key));
      }
    }
    String group = streamsProps.getProperty(StreamsConfig.APPLICATION_ID_CONFIG);
    Admin admin = Admin.create(adminProps);
    try {
      admin.removeMembersFromConsumerGroup(group, new RemoveMembersFromConsumerGroupOptions())
          .all().get(LEAVE_SECONDS, TimeUnit.SECONDS);
      System.out.println("streamt-runner left_group=" + group);
    } catch (Exception e) {
      System.out.println("streamt-runner leave_group_failed=" + e.getClass().getSimpleName());
    } finally {
      // close() would otherwise wait for a pending request as long as the API timeout (60 s).
      admin.close(Duration.ofSeconds(1));
    }
  }

  private static String jaasEscape(String value) {
    return value.replace("\\", "\\\\").replace("\"", "\\\"");
  }

  static void report(String state) {
    System.out.println("streamt-runner state=" + state);
    try {
      Path tmp = STATE_FILE.resolveSibling("streamt-runner-state.tmp");
      Files.writeString(tmp, state, StandardCharsets.UTF_8);
      Files.move(tmp, STATE_FILE, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (java.io.IOException e) {
      System.out.println("streamt-runner cannot write its state file: " + e.getClass().getSimpleName());
    }
  }

  /** The compiled filter and projection. A record that is not a JSON object, or whose columns have
   * another JSON type than declared, is dropped (and counted): it cannot be typed. */
  static final class Query {
    final List<Predicate> predicates = new ArrayList<>();
    final List<String[]> projections = new ArrayList<>();
    final List<String> types = new ArrayList<>();
    long dropped;

    static Query of(JsonNode plan) {
      Query q = new Query();
      for (JsonNode p : plan.path("predicates")) {
        q.predicates.add(new Predicate(p.path("column").asText(), p.path("op").asText(), p.path("type").asText(), p.get("value")));
      }
      for (JsonNode p : plan.path("projections")) {
        q.projections.add(new String[] {p.path("column").asText(), p.path("name").asText()});
        q.types.add(p.path("type").asText());
      }
      return q;
    }

    List<byte[]> apply(byte[] value) {
      if (value == null) {
        return List.of();
      }
      JsonNode record;
      try {
        record = JSON.readTree(value);
      } catch (java.io.IOException e) {
        return drop();
      }
      if (record == null || !record.isObject()) {
        return drop();
      }
      try {
        for (Predicate p : predicates) {
          if (!p.test(record)) {
            return List.of();
          }
        }
        ObjectNode out = JSON.createObjectNode();
        for (int i = 0; i < projections.size(); i++) {
          JsonNode field = record.get(projections.get(i)[0]);
          if (field == null || field.isNull()) {
            out.putNull(projections.get(i)[1]);
          } else {
            Predicate.checkType(field, types.get(i));
            out.set(projections.get(i)[1], field);
          }
        }
        return List.of(JSON.writeValueAsBytes(out));
      } catch (IllegalArgumentException | java.io.IOException e) {
        return drop();
      }
    }

    private List<byte[]> drop() {
      dropped++;
      if (dropped == 1 || dropped % 1000 == 0) {
        System.out.println("streamt-runner dropped_untyped_records=" + dropped);
      }
      return List.of();
    }
  }

  /** One SQL comparison with SQL's NULL rule: a comparison with a missing or null column is not true. */
  record Predicate(String column, String op, String type, JsonNode literal) {
    boolean test(JsonNode record) {
      JsonNode field = record.get(column);
      boolean isNull = field == null || field.isNull();
      if (op.equals("IS NULL")) {
        return isNull;
      }
      if (op.equals("IS NOT NULL")) {
        return !isNull;
      }
      if (isNull) {
        return false;
      }
      checkType(field, type);
      int cmp;
      switch (type) {
        case "BIGINT" -> cmp = Long.compare(field.asLong(), literal.asLong());
        case "BOOLEAN" -> cmp = Boolean.compare(field.asBoolean(), literal.asBoolean());
        default -> cmp = field.asText().compareTo(literal.asText());
      }
      return switch (op) {
        case "=" -> cmp == 0;
        case "<>" -> cmp != 0;
        case ">" -> cmp > 0;
        case ">=" -> cmp >= 0;
        case "<" -> cmp < 0;
        case "<=" -> cmp <= 0;
        default -> throw new IllegalArgumentException("operator " + op);
      };
    }

    static void checkType(JsonNode field, String type) {
      boolean ok = switch (type) {
        case "BIGINT" -> field.isIntegralNumber() && field.canConvertToLong();
        case "BOOLEAN" -> field.isBoolean();
        default -> field.isTextual();
      };
      if (!ok) {
        throw new IllegalArgumentException("type");
      }
    }
  }
}
