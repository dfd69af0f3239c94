// The analytics store's verdict on schema files, as its controller's POST /schemas gives it
// (Apache Pinot's PinotSchemaRestletResource.addSchema): read the JSON into pinot-spi's Schema
// (JsonUtils.stringToObjectAndUnrecognizedProperties), check the name (validateSchemaName), run
// the upload checks (pinot-segment-local's SchemaUtils.validate, the table cache's case
// sensitivity as the controller's default sets it), then write the schema as the controller
// stores it (Schema.toSingleLineJsonString, ZKMetadataProvider.setSchema).
//
// Compiled and run by scripts/platform/schema-harness.mjs against one store release's jars;
// prints one JSON line per file: {"file":…,"accepted":true} or {"file":…,"accepted":false,"message":…}.
// Written against the API common to releases 0.11.0 and 1.x; where they differ it asks by reflection.
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.List;
import org.apache.pinot.segment.local.utils.SchemaUtils;
import org.apache.pinot.spi.data.Schema;
import org.apache.pinot.spi.utils.JsonUtils;

public final class SchemaVerdict {
  private static final ObjectMapper OUT = new ObjectMapper();

  public static void main(String[] args) throws Exception {
    for (String file : args) {
      ObjectNode line = OUT.createObjectNode();
      line.put("file", file);
      try {
        verdict(new String(Files.readAllBytes(Paths.get(file)), StandardCharsets.UTF_8));
        line.put("accepted", true);
      } catch (Throwable refusal) {
        line.put("accepted", false);
        line.put("message", message(refusal));
      }
      System.out.println(OUT.writeValueAsString(line));
    }
  }

  private static void verdict(String json) throws Exception {
    Schema schema = JsonUtils.stringToObjectAndUnrecognizedProperties(json, Schema.class).getLeft();
    checkName(schema.getSchemaName());
    validate(schema);
    schema.toSingleLineJsonString();
  }

  /** PinotSchemaRestletResource.validateSchemaName: 0.11 refuses a blank name; 1.x an empty one, or one holding "__". */
  private static void checkName(String name) {
    String forbidden = forbiddenNamePart();
    if (forbidden == null) {
      if (name == null || name.trim().isEmpty()) throw new IllegalArgumentException("Invalid schema. Reason: 'schemaName' should not be null");
    } else {
      if (name == null || name.isEmpty()) throw new IllegalArgumentException("Invalid schema. Reason: 'schemaName' should not be null or empty");
      if (name.contains(forbidden)) throw new IllegalArgumentException("'schemaName' cannot contain double underscore ('__')");
    }
  }

  private static String forbiddenNamePart() {
    try {
      return (String) Class.forName("org.apache.pinot.spi.config.table.TableConfig").getField("TABLE_NAME_FORBIDDEN_SUBSTRING").get(null);
    } catch (ReflectiveOperationException absent) {
      return null;
    }
  }

  /**
   * validateSchemaInternal: SchemaUtils.validate(schema, tableConfigs[, isIgnoreCase]) with no table yet. From 1.x
   * the controller passes its table cache's isIgnoreCase, which CommonConstants.Helix.DEFAULT_ENABLE_CASE_INSENSITIVE
   * (true) sets unless the cluster is configured otherwise.
   */
  private static void validate(Schema schema) throws Exception {
    List<Object> noTables = Collections.emptyList();
    Method withCase = null;
    try {
      withCase = SchemaUtils.class.getMethod("validate", Schema.class, List.class, boolean.class);
    } catch (NoSuchMethodException olderRelease) {
      // 0.11: SchemaUtils.validate(schema, tableConfigs), case-sensitive.
    }
    try {
      if (withCase != null) withCase.invoke(null, schema, noTables, true);
      else SchemaUtils.class.getMethod("validate", Schema.class, List.class).invoke(null, schema, noTables);
    } catch (InvocationTargetException thrown) {
      throw thrown.getCause() instanceof Exception ? (Exception) thrown.getCause() : new IllegalStateException(thrown.getCause());
    }
  }

  private static String message(Throwable refusal) {
    Throwable shown = refusal instanceof InvocationTargetException && refusal.getCause() != null ? refusal.getCause() : refusal;
    String text = shown.getMessage() == null ? shown.getClass().getName() : shown.getMessage();
    return text.split("\n")[0];
  }
}
