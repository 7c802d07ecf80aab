<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.10" tiledversion="1.10.2" name="terrain" tilewidth="32" tileheight="32" tilecount="9" columns="9">
 <image source="terrain.png" width="288" height="32"/>
 <tile id="0" type="floor"/>
 <tile id="1" type="wall"/>
 <tile id="2" type="cover"/>
 <tile id="3" type="closed door"/>
 <tile id="4" type="open door"/>
 <tile id="5" type="locked door"/>
 <tile id="6" type="ammo crate"/>
 <tile id="7" type="key"/>
 <tile id="8" type="resource field"/>
</tileset>
