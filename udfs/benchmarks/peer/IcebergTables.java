package cdclake.peer;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import org.apache.iceberg.PartitionSpec;
import org.apache.iceberg.catalog.Namespace;
import org.apache.iceberg.catalog.TableIdentifier;
import org.apache.iceberg.spark.SparkCatalog;
import org.apache.iceberg.spark.SparkSchemaUtil;
import org.apache.spark.sql.catalyst.analysis.NamespaceAlreadyExistsException;
import org.apache.spark.sql.catalyst.analysis.NoSuchNamespaceException;
import org.apache.spark.sql.catalyst.analysis.NoSuchTableException;
import org.apache.spark.sql.catalyst.analysis.NonEmptyNamespaceException;
import org.apache.spark.sql.catalyst.analysis.TableAlreadyExistsException;
import org.apache.spark.sql.connector.catalog.CatalogV2Util;
import org.apache.spark.sql.connector.catalog.Identifier;
import org.apache.spark.sql.connector.catalog.NamespaceChange;
import org.apache.spark.sql.connector.catalog.SupportsNamespaces;
import org.apache.spark.sql.connector.catalog.Table;
import org.apache.spark.sql.connector.catalog.TableCatalog;
import org.apache.spark.sql.connector.catalog.TableChange;
import org.apache.spark.sql.connector.expressions.Transform;
import org.apache.spark.sql.types.StructType;
import org.apache.spark.sql.util.CaseInsensitiveStringMap;

/**
 * Iceberg's tables (its runtime for Spark 4.1) in a catalog Spark 4.2 accepts, for the peer
 * benchmark until Iceberg's runtime for Spark 4.2 is on Maven Central. Spark 4.2 refuses a
 * catalog that is both a TableCatalog and a ViewCatalog, as Iceberg's is, and renamed the
 * helper Iceberg's tables describe their columns with; the rest of Iceberg's reads, writes
 * and row-level operations (MERGE, what AUTO CDC writes with) work unchanged, so this
 * catalog offers Iceberg's tables without views and answers those two calls itself.
 */
public class IcebergTables implements TableCatalog, SupportsNamespaces {
  private final SparkCatalog iceberg = new SparkCatalog();

  @Override
  public void initialize(String name, CaseInsensitiveStringMap options) {
    iceberg.initialize(name, options);
  }

  @Override
  public String name() {
    return iceberg.name();
  }

  @Override
  public Identifier[] listTables(String[] namespace) throws NoSuchNamespaceException {
    return iceberg.listTables(namespace);
  }

  @Override
  public Table loadTable(Identifier ident) throws NoSuchTableException {
    return withColumns(iceberg.loadTable(ident));
  }

  @Override
  public void invalidateTable(Identifier ident) {
    iceberg.invalidateTable(ident);
  }

  /** Through Iceberg's own catalog: Iceberg's Spark createTable describes the new table
   * with the helper Spark 4.2 renamed. Unpartitioned, as the benchmark's tables are. */
  @Override
  public Table createTable(
      Identifier ident, StructType schema, Transform[] partitions, Map<String, String> properties)
      throws TableAlreadyExistsException, NoSuchNamespaceException {
    if (partitions.length > 0) {
      throw new UnsupportedOperationException("partitioned tables: not needed by the benchmark");
    }
    Map<String, String> tableProperties = new HashMap<>(properties);
    // Spark's reserved properties (provider, location, owner) are not Iceberg table properties.
    tableProperties.keySet().removeAll(Set.of("provider", "location", "owner", "comment"));
    iceberg.icebergCatalog().createTable(
        TableIdentifier.of(Namespace.of(ident.namespace()), ident.name()),
        SparkSchemaUtil.convert(schema),
        PartitionSpec.unpartitioned(),
        tableProperties);
    try {
      return loadTable(ident);
    } catch (NoSuchTableException error) {
      throw new IllegalStateException("created, then not found: " + ident, error);
    }
  }

  @Override
  public Table alterTable(Identifier ident, TableChange... changes) throws NoSuchTableException {
    return withColumns(iceberg.alterTable(ident, changes));
  }

  @Override
  public boolean dropTable(Identifier ident) {
    return iceberg.dropTable(ident);
  }

  @Override
  public boolean purgeTable(Identifier ident) {
    return iceberg.purgeTable(ident);
  }

  @Override
  public void renameTable(Identifier from, Identifier to)
      throws NoSuchTableException, TableAlreadyExistsException {
    iceberg.renameTable(from, to);
  }

  @Override
  public String[][] listNamespaces() throws NoSuchNamespaceException {
    return iceberg.listNamespaces();
  }

  @Override
  public String[][] listNamespaces(String[] namespace) throws NoSuchNamespaceException {
    return iceberg.listNamespaces(namespace);
  }

  @Override
  public Map<String, String> loadNamespaceMetadata(String[] namespace)
      throws NoSuchNamespaceException {
    return iceberg.loadNamespaceMetadata(namespace);
  }

  @Override
  public void createNamespace(String[] namespace, Map<String, String> metadata)
      throws NamespaceAlreadyExistsException {
    iceberg.createNamespace(namespace, metadata);
  }

  @Override
  public void alterNamespace(String[] namespace, NamespaceChange... changes)
      throws NoSuchNamespaceException {
    iceberg.alterNamespace(namespace, changes);
  }

  @Override
  public boolean dropNamespace(String[] namespace, boolean cascade)
      throws NoSuchNamespaceException, NonEmptyNamespaceException {
    return iceberg.dropNamespace(namespace, cascade);
  }

  /** The Iceberg table as itself (every interface it implements, so Spark sees it can read,
   * write and MERGE), except for columns(), which Iceberg computes with the renamed helper. */
  private static Table withColumns(Table table) {
    Set<Class<?>> interfaces = new LinkedHashSet<>();
    for (Class<?> type = table.getClass(); type != null; type = type.getSuperclass()) {
      interfaces.addAll(Arrays.asList(type.getInterfaces()));
    }
    return (Table)
        Proxy.newProxyInstance(
            IcebergTables.class.getClassLoader(),
            interfaces.toArray(new Class<?>[0]),
            (proxy, method, args) -> {
              if (method.getName().equals("columns") && method.getParameterCount() == 0) {
                return CatalogV2Util.structTypeToV2Columns(
                    table.schema(), CatalogV2Util.structTypeToV2Columns$default$2());
              }
              try {
                return method.invoke(table, args);
              } catch (InvocationTargetException error) {
                throw error.getCause();
              }
            });
  }
}
