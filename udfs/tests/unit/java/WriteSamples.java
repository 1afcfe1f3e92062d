import cdclake.samples.Color;
import cdclake.samples.CustomData;
import cdclake.samples.Everything;
import cdclake.samples.ExternalThing;
import cdclake.samples.Node;
import com.alibaba.di.plugin.center.meta.DDLMeta;
import com.alibaba.fastsql.DbType;
import com.alibaba.fastsql.sql.ast.SQLDataTypeImpl;
import com.alibaba.fastsql.sql.ast.SQLExprImpl;
import com.alibaba.fastsql.sql.ast.SQLStatementImpl;
import com.alibaba.fastsql.sql.ast.expr.SQLIdentifierExpr;
import com.alibaba.fastsql.sql.ast.expr.SQLIntegerExpr;
import com.alibaba.fastsql.sql.ast.expr.SQLPropertyExpr;
import com.alibaba.fastsql.sql.ast.statement.SQLAlterTableAddColumn;
import com.alibaba.fastsql.sql.ast.statement.SQLAlterTableDropColumnItem;
import com.alibaba.fastsql.sql.ast.statement.SQLAlterTableRenameColumn;
import com.alibaba.fastsql.sql.ast.statement.SQLAlterTableStatement;
import com.alibaba.fastsql.sql.ast.statement.SQLCharacterDataType;
import com.alibaba.fastsql.sql.ast.statement.SQLColumnDefinition;
import com.alibaba.fastsql.sql.ast.statement.SQLCreateIndexStatement;
import com.alibaba.fastsql.sql.ast.statement.SQLCreateViewStatement;
import com.alibaba.fastsql.sql.ast.statement.SQLDropIndexStatement;
import com.alibaba.fastsql.sql.ast.statement.SQLDropTableStatement;
import com.alibaba.fastsql.sql.ast.statement.SQLExprTableSource;
import com.alibaba.fastsql.sql.ast.statement.SQLPrimaryKeyImpl;
import com.alibaba.fastsql.sql.ast.statement.SQLTruncateStatement;
import com.alibaba.fastsql.sql.dialect.mysql.ast.statement.MySqlAlterTableChangeColumn;
import com.alibaba.fastsql.sql.dialect.mysql.ast.statement.MySqlAlterTableModifyColumn;
import com.alibaba.fastsql.sql.dialect.mysql.ast.statement.MySqlCreateTableStatement;
import com.alibaba.fastsql.sql.dialect.mysql.ast.statement.MySqlRenameTableStatement;
import java.io.IOException;
import java.io.NotSerializableException;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.Vector;

/**
 * Writes real Java serialization streams for the Python decoder's tests: one file per sample,
 * named sample.ser, in the directory given as the only argument.
 */
public final class WriteSamples {
    private WriteSamples() {}

    public static void main(String[] args) throws IOException {
        Path dir = Path.of(args[0]);
        Files.createDirectories(dir);
        for (Map.Entry<String, Object> sample : samples().entrySet()) {
            try (OutputStream file = Files.newOutputStream(dir.resolve(sample.getKey() + ".ser"));
                    ObjectOutputStream out = new ObjectOutputStream(file)) {
                out.writeObject(sample.getValue());
            }
        }
        writeFailure(dir.resolve("exception_in_stream.ser"));
    }

    private static Map<String, Object> samples() {
        Map<String, Object> samples = new LinkedHashMap<>();
        samples.put("alter_add_column", alterAddColumn());
        samples.put("alter_drop_column", alterDropColumn());
        samples.put("alter_modify_column", alterModifyColumn());
        samples.put("alter_change_column", alterChangeColumn());
        samples.put("alter_rename_column", alterRenameColumn());
        samples.put("create_table", createTable());
        samples.put("drop_table", dropTable());
        samples.put("truncate", truncate());
        samples.put("rename_table", renameTable());
        samples.put("create_index", createIndex());
        samples.put("drop_index", dropIndex());
        samples.put("create_view", createView());
        samples.put("everything", new Everything());
        samples.put("nested_lists", nestedLists());
        samples.put("hashmap_string_keys", hashMapStringKeys());
        samples.put("hashmap_other_keys", hashMapOtherKeys());
        samples.put("linked_list", new LinkedList<>(List.of("x", "y", "z")));
        samples.put("hash_set", new HashSet<>(List.of("p", "q", "r")));
        samples.put("collections", collections());
        samples.put("shared", shared());
        samples.put("cycle", cycle());
        samples.put("long_string", "\u00e9".repeat(40000) + "\uD83D\uDE00" + "\u0000" + "end");
        samples.put("custom_write_object", new CustomData());
        samples.put("externalizable", new ExternalThing());
        samples.put("enum", Color.RED);
        samples.put("boxed_integer", 12345);
        return samples;
    }

    /** A list holding an object that cannot be serialized: the stream ends with TC_EXCEPTION. */
    private static void writeFailure(Path path) throws IOException {
        List<Object> list = new ArrayList<>(List.of("fine", new Object()));
        try (ObjectOutputStream out = new ObjectOutputStream(Files.newOutputStream(path))) {
            out.writeObject(list);
            throw new IllegalStateException("java.lang.Object was serialized");
        } catch (NotSerializableException expected) {
            // ObjectOutputStream wrote the exception into the stream before throwing it.
        }
    }

    // ---------- FastSQL statements, built the way its parser links them (children know parents)

    private static DDLMeta meta(String ddl, SQLStatementImpl statement, DbType dbType) {
        DDLMeta meta = new DDLMeta();
        meta.ddlText = ddl;
        meta.statement = statement;
        statement.dbType = dbType;
        return meta;
    }

    private static SQLIdentifierExpr id(String name) {
        SQLIdentifierExpr expr = new SQLIdentifierExpr();
        expr.name = name;
        return expr;
    }

    private static SQLPropertyExpr qualified(String owner, String name) {
        SQLPropertyExpr expr = new SQLPropertyExpr();
        expr.owner = expr.adopt(id(owner));
        expr.name = name;
        return expr;
    }

    private static SQLExprTableSource table(SQLExprImpl name) {
        SQLExprTableSource source = new SQLExprTableSource();
        source.expr = source.adopt(name);
        return source;
    }

    private static SQLDataTypeImpl type(SQLDataTypeImpl type, String name, int... arguments) {
        type.name = name;
        for (int argument : arguments) {
            SQLIntegerExpr literal = new SQLIntegerExpr();
            literal.number = argument;
            type.arguments.add(type.adopt(literal));
        }
        return type;
    }

    private static SQLColumnDefinition column(String name, SQLDataTypeImpl type) {
        SQLColumnDefinition column = new SQLColumnDefinition();
        column.name = column.adopt(id(name));
        column.dataType = column.adopt(type);
        return column;
    }

    private static SQLAlterTableStatement alter(SQLExprImpl name) {
        SQLAlterTableStatement alter = new SQLAlterTableStatement();
        alter.tableSource = alter.adopt(table(name));
        return alter;
    }

    private static DDLMeta alterAddColumn() {
        SQLAlterTableStatement alter = alter(qualified("shop", "orders"));
        SQLAlterTableAddColumn addNote = alter.adopt(new SQLAlterTableAddColumn());
        addNote.columns.add(
                addNote.adopt(column("`note`", type(new SQLCharacterDataType(), "varchar", 255))));
        SQLAlterTableAddColumn addQty = alter.adopt(new SQLAlterTableAddColumn());
        SQLDataTypeImpl unsignedInt = type(new SQLDataTypeImpl(), "int");
        unsignedInt.unsigned = true;
        addQty.columns.add(addQty.adopt(column("qty", unsignedInt)));
        alter.items.add(addNote);
        alter.items.add(addQty);
        return meta(
                "alter table shop.orders add column `note` varchar(255), add column qty int unsigned",
                alter,
                DbType.mysql);
    }

    private static DDLMeta alterDropColumn() {
        SQLAlterTableStatement alter = alter(id("t_drop"));
        SQLAlterTableDropColumnItem drop = alter.adopt(new SQLAlterTableDropColumnItem());
        drop.columns.add(drop.adopt(id("a")));
        drop.columns.add(drop.adopt(id("`b`")));
        alter.items.add(drop);
        return meta("alter table t_drop drop column a, drop column `b`", alter, DbType.mysql);
    }

    private static DDLMeta alterModifyColumn() {
        SQLAlterTableStatement alter = alter(id("t_modify"));
        MySqlAlterTableModifyColumn modify = alter.adopt(new MySqlAlterTableModifyColumn());
        modify.newColumnDefinition =
                modify.adopt(column("price", type(new SQLDataTypeImpl(), "decimal", 10, 2)));
        alter.items.add(modify);
        return meta("alter table t_modify modify column price decimal(10,2)", alter, DbType.mysql);
    }

    private static DDLMeta alterChangeColumn() {
        SQLAlterTableStatement alter = alter(id("t_change"));
        MySqlAlterTableChangeColumn rename = alter.adopt(new MySqlAlterTableChangeColumn());
        rename.columnName = rename.adopt(id("old_name"));
        rename.newColumnDefinition =
                rename.adopt(column("new_name", type(new SQLDataTypeImpl(), "bigint")));
        MySqlAlterTableChangeColumn retype = alter.adopt(new MySqlAlterTableChangeColumn());
        retype.columnName = retype.adopt(id("c"));
        retype.newColumnDefinition =
                retype.adopt(column("`c`", type(new SQLCharacterDataType(), "text")));
        alter.items.add(rename);
        alter.items.add(retype);
        return meta(
                "alter table t_change change column old_name new_name bigint, change c `c` text",
                alter,
                DbType.mysql);
    }

    private static DDLMeta alterRenameColumn() {
        SQLAlterTableStatement alter = alter(id("t_rename"));
        SQLAlterTableRenameColumn rename = alter.adopt(new SQLAlterTableRenameColumn());
        rename.column = rename.adopt(id("a"));
        rename.to = rename.adopt(id("b"));
        alter.items.add(rename);
        return meta("alter table t_rename rename column a to b", alter, DbType.mysql);
    }

    private static DDLMeta createTable() {
        MySqlCreateTableStatement create = new MySqlCreateTableStatement();
        create.engine = "InnoDB";
        create.tableSource = create.adopt(table(qualified("\"db\"", "\"users\"")));
        create.tableElementList.add(
                create.adopt(column("id", type(new SQLDataTypeImpl(), "bigint"))));
        create.tableElementList.add(
                create.adopt(column("name", type(new SQLCharacterDataType(), "varchar", 255))));
        create.tableElementList.add(
                create.adopt(column("balance", type(new SQLDataTypeImpl(), "decimal", 10, 2))));
        SQLPrimaryKeyImpl key = create.adopt(new SQLPrimaryKeyImpl());
        key.columns.add(key.adopt(id("id")));
        create.tableElementList.add(key);
        return meta(
                "create table \"db\".\"users\" (id bigint, name varchar(255),"
                        + " balance decimal(10,2), primary key (id))",
                create,
                DbType.postgresql);
    }

    private static DDLMeta dropTable() {
        SQLDropTableStatement drop = new SQLDropTableStatement();
        drop.tableSources.add(drop.adopt(table(id("t_old"))));
        return meta("drop table t_old", drop, DbType.mysql);
    }

    private static DDLMeta truncate() {
        SQLTruncateStatement truncate = new SQLTruncateStatement();
        truncate.tableSources.add(truncate.adopt(table(qualified("shop", "`cart`"))));
        return meta("truncate table shop.`cart`", truncate, DbType.mysql);
    }

    private static DDLMeta renameTable() {
        MySqlRenameTableStatement rename = new MySqlRenameTableStatement();
        MySqlRenameTableStatement.Item item = rename.adopt(new MySqlRenameTableStatement.Item());
        item.name = item.adopt(qualified("shop", "t_a"));
        item.to = item.adopt(qualified("shop", "t_b"));
        rename.items.add(item);
        return meta("rename table shop.t_a to shop.t_b", rename, DbType.mysql);
    }

    private static DDLMeta createIndex() {
        SQLCreateIndexStatement create = new SQLCreateIndexStatement();
        create.name = create.adopt(id("idx_a"));
        create.table = create.adopt(table(id("t_idx")));
        return meta("create index idx_a on t_idx (a)", create, DbType.mysql);
    }

    private static DDLMeta dropIndex() {
        SQLDropIndexStatement drop = new SQLDropIndexStatement();
        drop.indexName = drop.adopt(id("idx_a"));
        drop.tableName = drop.adopt(table(id("`t_idx`")));
        return meta("drop index idx_a on `t_idx`", drop, DbType.mysql);
    }

    private static DDLMeta createView() {
        SQLCreateViewStatement view = new SQLCreateViewStatement();
        view.tableSource = view.adopt(table(id("v_orders")));
        return meta("create view v_orders as select 1", view, DbType.oracle);
    }

    // ---------- protocol features

    private static List<Object> nestedLists() {
        List<Object> deepest = new ArrayList<>(List.of(2L));
        List<Object> nested = new ArrayList<>();
        nested.add(deepest);
        List<Object> outer = new ArrayList<>();
        outer.add(new ArrayList<>(List.of(1, "a")));
        outer.add(new ArrayList<>());
        outer.add(nested);
        return outer;
    }

    private static Map<String, Object> hashMapStringKeys() {
        Map<String, Object> map = new HashMap<>();
        map.put("a", 1);
        map.put("b", "x");
        map.put("c", null);
        return map;
    }

    private static Map<Object, String> hashMapOtherKeys() {
        Map<Object, String> map = new HashMap<>();
        map.put(1, "one");
        map.put(2L, "two");
        map.put(Color.RED, "red");
        return map;
    }

    private static Map<String, Object> collections() {
        Map<String, Object> all = new LinkedHashMap<>();
        all.put("arrayList", new ArrayList<>(List.of(1, "two")));
        all.put("arrayDeque", new ArrayDeque<>(List.of("d1", "d2")));
        all.put("vector", new Vector<>(List.of("v1", "v2")));
        all.put("linkedHashSet", new LinkedHashSet<>(List.of("s2", "s1")));
        all.put("treeSet", new TreeSet<>(List.of("b", "a")));
        all.put("treeMap", new TreeMap<>(Map.of("k2", 2, "k1", 1)));
        all.put("hashtable", new Hashtable<>(Map.of("h", true)));
        all.put("emptyMap", new HashMap<>());
        all.put("atKey", new HashMap<>(Map.of("@class", "sneaky")));
        return all;
    }

    /** The same node and the same string twice: the second of each is a back-reference. */
    private static List<Object> shared() {
        Node leaf = new Node("leaf");
        String same = new String("same");
        List<Object> list = new ArrayList<>();
        list.add(leaf);
        list.add(same);
        list.add(leaf);
        list.add(same);
        return list;
    }

    private static Node cycle() {
        Node root = new Node("root");
        Node child = new Node("child");
        child.parent = root;
        root.children.add(child);
        return root;
    }
}
