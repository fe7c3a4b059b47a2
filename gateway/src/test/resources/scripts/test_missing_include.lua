-- A script whose library is missing (LuaScriptsTest).
--@include no_such_lib
return 1
